/**
 * Demonstrations: a synthetic scenario per intent, a seeded bank split that never leaks held-out
 * sentences into training, routing observations, and per-decision episode samples.
 */
import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../../host/domain-files';
import { dialogueState } from '../agents/da-actions';
import { slotsIn } from '../agents/slots';
import { DOMAIN_TOOLS } from '../domain/types';
import type { DomainTool } from '../domain/types';
import {
  bankDemos,
  bankRoutingItems,
  bankSlices,
  camouflagedRoutingItems,
  expertEpisodeDemos,
  hashSplit,
  openingDemos,
  otherIntentScenarios,
  routingObservation,
  situationFor,
  splitBank,
  synthScenario,
  taxonomyRoutingItems,
  validationSlice,
  withoutBankSentences,
} from './demos';

const domain = bankingDomain();

describe('synthetic scenarios', () => {
  it('exist for every intent, with a situation that fits its tool', () => {
    const ids = new Set<string>();
    for (const e of domain.taxonomy) {
      const s = synthScenario(e);
      expect(s.intents).toEqual([e.intent]);
      expect(s.expectedTool).toBe(e.tool);
      ids.add(s.id);
    }
    expect(ids.size).toBe(domain.taxonomy.length);
    expect(situationFor({ intent: 'transaction_charged_twice', tool: 'dispute_charge' })).toBe('duplicate_charge');
    expect(situationFor({ intent: 'Refund_not_showing_up', tool: 'dispute_charge' })).toBe('refund_missing');
    expect(situationFor({ intent: 'lost_or_stolen_card', tool: 'transfer_to_human' })).toBe('compromised');
    expect(situationFor({ intent: 'card_arrival', tool: 'check_card_status' })).toBe('card_declined');
  });
});

describe('intents beyond the shipped scenarios', () => {
  it('splits the intents no arena or held-out scenario names, spoken by the bank, into two fixed halves', () => {
    const gym = otherIntentScenarios(domain, domain.bank, 'gym');
    const validation = otherIntentScenarios(domain, domain.bank, 'validation');
    const named = new Set(domain.scenarios.filter((s) => s.set === 'arena' || s.set === 'heldout').flatMap((s) => s.intents));
    const spoken = new Set(domain.bank.utterances.map((u) => u.intent));
    const expected = domain.taxonomy.filter((e) => !named.has(e.intent) && spoken.has(e.intent)).map((e) => e.intent);
    const intentsOf = (xs: typeof gym) => xs.map((s) => s.intents[0]!);
    // Disjoint halves that cover exactly those intents, each a synthetic scenario of its intent.
    expect(new Set([...intentsOf(gym), ...intentsOf(validation)])).toEqual(new Set(expected));
    expect(intentsOf(gym).filter((i) => intentsOf(validation).includes(i))).toEqual([]);
    expect(gym[0]).toEqual(synthScenario(domain.taxonomy.find((e) => e.intent === gym[0]!.intents[0])!));
    // Neither half is empty, and every tool has an intent in one of them.
    expect(gym.length).toBeGreaterThan(10);
    expect(validation.length).toBeGreaterThan(10);
    // The halves do not depend on which sentences the bank holds, only on which intents it speaks.
    const oneEach = [...new Map(domain.bank.utterances.map((u) => [u.intent, u])).values()];
    expect(intentsOf(otherIntentScenarios(domain, { utterances: oneEach }, 'gym'))).toEqual(intentsOf(gym));
    // An intent the bank does not speak is left out.
    const silent = gym[0]!.intents[0]!;
    const without = domain.bank.utterances.filter((u) => u.intent !== silent);
    expect(intentsOf(otherIntentScenarios(domain, { utterances: without }, 'gym'))).toEqual(intentsOf(gym).filter((i) => i !== silent));
  });
});

describe('bank split', () => {
  it('is seeded, disjoint, about 15% held out, and keeps every intent in training', () => {
    const all = domain.bank.utterances;
    const a = splitBank(all, 1);
    expect(splitBank(all, 1)).toEqual(a);
    expect(a.train.length + a.heldout.length).toBe(all.length);
    const key = (u: { intent: string; text: string }) => `${u.intent}|${u.text}`;
    const train = new Set(a.train.map(key));
    expect(a.heldout.some((u) => train.has(key(u)))).toBe(false);
    expect(a.heldout.length / all.length).toBeGreaterThan(0.1);
    expect(a.heldout.length / all.length).toBeLessThan(0.2);
    expect(new Set(a.train.map((u) => u.intent)).size).toBe(new Set(all.map((u) => u.intent)).size);
    expect(splitBank(all, 2).heldout).not.toEqual(a.heldout);
    // A row's slice depends on its key only, not on the order of the rows.
    const rows = Array.from({ length: 200 }, (_, i) => `row${i}`);
    expect(hashSplit([...rows].reverse(), (r) => r, 0.2, 5).heldout.sort()).toEqual(hashSplit(rows, (r) => r, 0.2, 5).heldout.sort());
  });

  it('never puts a held-out sentence into a demonstration', () => {
    const { demos, heldout } = bankDemos(domain, { seed: 3, episodesPerIntent: 1, fills: 1 });
    const split = splitBank(domain.bank.utterances, 3);
    expect(heldout.length).toBe(split.heldout.length);
    const texts = demos.map((d) => dialogueState(d.obs).customerText).join('\n');
    // Sentences without slots appear verbatim wherever they are used.
    const plain = split.heldout.filter((u) => slotsIn(u.text).length === 0 && !split.train.some((t) => t.text === u.text));
    expect(plain.length).toBeGreaterThan(20);
    for (const u of plain) expect(texts.includes(u.text), u.text).toBe(false);
  });

  it("keeps a CA-only share of the train slice out of DA0's demonstrations, every intent still covered", () => {
    const split = splitBank(domain.bank.utterances, 3);
    expect(bankSlices(domain.bank.utterances, 3)).toEqual({ daTrain: split.train, caOnly: [], heldout: split.heldout });
    const s = bankSlices(domain.bank.utterances, 3, { caOnlyShare: 0.25 });
    expect(s.heldout).toEqual(split.heldout);
    const key = (u: { intent: string; text: string }) => `${u.intent} ${u.text}`;
    // daTrain and caOnly split the train slice between them.
    expect([...s.daTrain, ...s.caOnly].map(key).sort()).toEqual(split.train.map(key).sort());
    expect(s.caOnly.length / split.train.length).toBeGreaterThan(0.15);
    expect(s.caOnly.length / split.train.length).toBeLessThan(0.35);
    expect(new Set(s.daTrain.map((u) => u.intent))).toEqual(new Set(split.train.map((u) => u.intent)));
    expect(() => bankSlices(domain.bank.utterances, 3, { caOnlyShare: 1 })).toThrow(/caOnlyShare must be in \[0, 1\)/);

    const { demos } = bankDemos(domain, { seed: 3, episodesPerIntent: 1, fills: 1, caOnlyShare: 0.25 });
    const texts = demos.map((d) => dialogueState(d.obs).customerText).join('\n');
    const plain = s.caOnly.filter((u) => slotsIn(u.text).length === 0 && !s.daTrain.some((t) => t.text === u.text));
    expect(plain.length).toBeGreaterThan(20);
    for (const u of plain) expect(texts.includes(u.text), u.text).toBe(false);
  });

  it('carves a validation slice from the train slice alone: the bank without it splits into the same held-out slice', () => {
    const key = (u: { intent: string; text: string }) => `${u.intent} ${u.text}`;
    for (const seed of [3, 11]) {
      const split = splitBank(domain.bank.utterances, seed);
      const { kept, validation } = validationSlice(domain.bank.utterances, seed, 0.2);
      expect(validation.length / split.train.length).toBeGreaterThan(0.12);
      expect(validation.length / split.train.length).toBeLessThan(0.28);
      // Validation sentences come from the train slice, and the rest of the bank is kept.
      const train = new Set(split.train.map(key));
      for (const u of validation) expect(train.has(key(u)), u.text).toBe(true);
      expect([...kept, ...validation].map(key).sort()).toEqual(domain.bank.utterances.map(key).sort());
      const again = splitBank(kept, seed);
      expect(again.heldout).toEqual(split.heldout);
      expect(again.train.map(key).sort()).toEqual(
        split.train
          .filter((u) => !validation.includes(u))
          .map(key)
          .sort(),
      );
      expect(new Set(again.train.map((u) => u.intent))).toEqual(new Set(split.train.map((u) => u.intent)));
    }
    expect(validationSlice(domain.bank.utterances, 3, 0.2)).toEqual(validationSlice(domain.bank.utterances, 3, 0.2));
    expect(() => validationSlice(domain.bank.utterances, 3, 0)).toThrow(/share must be in \(0, 1\)/);
  });
});

describe('routing and episode demonstrations', () => {
  it('a routing observation is one utterance and a successful lookup', () => {
    const obs = routingObservation('My card was declined.');
    const s = dialogueState(obs);
    expect(obs.turns).toHaveLength(2);
    expect(s.customerText).toBe('My card was declined.');
    expect(s.lookup?.verified).toBe(true);
    expect(obs.daSteps).toBe(1);
    const items = bankRoutingItems(domain, domain.bank.utterances.slice(0, 30), { fills: 2, seed: 1 });
    expect(items).toHaveLength(60);
    for (const it of items) expect(it.text).not.toMatch(/[{}]/);
    expect(taxonomyRoutingItems(domain).some((i) => i.text === 'card swallowed' && i.tool === 'check_card_status')).toBe(true);
  });

  it("camouflaged items keep the sentence and its label, and add only the CA's parts, seeded", () => {
    const plain = domain.bank.utterances.filter((u) => slotsIn(u.text).length === 0).slice(0, 40);
    const opts = { variants: 4, seed: 2 };
    const items = camouflagedRoutingItems(domain, plain, opts);
    expect(items).toHaveLength(160);
    expect(camouflagedRoutingItems(domain, plain, opts)).toEqual(items);
    const toolOf = new Map(domain.taxonomy.map((e) => [e.intent, e.tool]));
    const decoysOf = (tool: string) =>
      Object.entries(domain.bank.decoys)
        .filter(([t]) => t !== tool)
        .flatMap(([, xs]) => xs);
    const ownDecoys = (tool: string) => domain.bank.decoys[tool as keyof typeof domain.bank.decoys];
    let withDecoy = 0;
    items.forEach((it, i) => {
      const u = plain[Math.floor(i / 4)]!;
      expect(it.intent).toBe(u.intent);
      expect(it.tool).toBe(toolOf.get(u.intent));
      expect(it.text).not.toMatch(/[{}]/);
      // The sentence itself is there (its first letter may be lower-cased after a hedge).
      expect(it.text.toLowerCase()).toContain(u.text.slice(1).toLowerCase());
      const stem = (d: string) => d.split('{')[0]!.trim();
      if (decoysOf(it.tool).some((d) => stem(d).length > 8 && it.text.includes(stem(d)))) withDecoy++;
      for (const d of ownDecoys(it.tool)) if (stem(d).length > 8) expect(it.text.includes(stem(d)), d).toBe(false);
    });
    expect(withDecoy / items.length).toBeGreaterThan(0.3);
    expect(withDecoy / items.length).toBeLessThan(0.7);
  });

  it('opening demos teach the first decision: ask for the charge or amount a tool needs, else verify', () => {
    const item = (text: string, tool: DomainTool) => ({ text, intent: 'x', tool });
    const [vague, named, move, human] = openingDemos([
      item('A card payment has me confused.', 'dispute_charge'),
      item('Netflix took $12.99 and I never signed up.', 'dispute_charge'),
      item('I want to move some money into savings.', 'transfer_funds'),
      item('Someone has been in my account.', 'transfer_to_human'),
    ]);
    expect([vague, named, move, human].map((d) => d!.target.choice)).toEqual(['ask', 'lookup_account', 'ask', 'lookup_account']);
    expect(vague!.obs.turns).toHaveLength(1);
    expect(vague!.obs.daSteps).toBe(0);
    // bankDemos adds one opening per train sentence by default, none when asked not to.
    const first = (o: number) => bankDemos(domain, { seed: 3, episodesPerIntent: 0, fills: 1, openings: o }).demos.filter((d) => d.obs.daSteps === 0).length;
    expect(first(1)).toBe(splitBank(domain.bank.utterances, 3).train.length);
    expect(first(0)).toBe(0);
  });

  it('episodes give one sample per DA decision, for every intent, with every choice represented', () => {
    const demos = expertEpisodeDemos(domain, { episodesPerIntent: 1, seed: 4 });
    expect(new Set(demos.map((d) => d.target.intent)).size).toBe(domain.taxonomy.length);
    const choices = new Set(demos.map((d) => d.target.choice));
    for (const c of ['ask', 'lookup_account', 'explain', 'end_call', ...DOMAIN_TOOLS]) expect(choices.has(c as never), c).toBe(true);
    // Each sample's observation is the DA's view at that point: it ends where the decision is taken.
    for (const d of demos) expect(d.obs.turns.length).toBeGreaterThan(0);
    // One lookup per episode: the default customer's and the camouflaged one's (hasty episodes keep only what follows their call).
    expect(demos.filter((d) => d.target.choice === 'lookup_account').length).toBe(2 * domain.taxonomy.length);
  });
});

describe('withoutBankSentences', () => {
  it('drops a corpus row that repeats a bank sentence up to case, punctuation and spacing, and keeps the rest in order', () => {
    const plain = domain.bank.utterances.find((u) => !u.text.includes('{'))!;
    const shouted = `  ${plain.text.toUpperCase().replace(/[.?!]$/, '')}!!  `;
    const rows = [
      { text: 'where is my new card', intent: 'card_arrival' },
      { text: shouted, intent: plain.intent },
      { text: 'my pin got blocked', intent: 'pin_blocked' },
    ];
    expect(withoutBankSentences(rows, domain.bank).map((r) => r.text)).toEqual(['where is my new card', 'my pin got blocked']);
    // Every bank sentence is dropped, whatever its slots.
    expect(withoutBankSentences(domain.bank.utterances, domain.bank)).toEqual([]);
  });
});
