import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../../host/domain-files';
import { DOMAIN_TOOLS } from '../domain/types';
import type { DomainTool } from '../domain/types';
import { Rng } from '../random';
import { isNaturalLanguage, revealsIntent } from '../rewards/ca-reward';
import type { CustomerFacts } from '../world/backend';
import type { CaObservation } from '../world/environment';
import {
  CA_DIRECTNESS,
  CA_DETAIL_LEVELS,
  CA_HEAD_OFFSETS,
  CA_HEAD_SIZES,
  CA_TONES,
  allCaChoices,
  caTurnState,
  decodeCaChoice,
  decoySentences,
  detailKindsOf,
  encodeCaChoice,
  hedgePhrases,
  joinLead,
  joinSentences,
  leadOf,
  openingDetailTemplates,
  openingSentences,
  openingTonePrefixes,
  renderCaChoice,
} from './ca-choices';
import type { CaChoice, DetailKind } from './ca-choices';
import { fillSlots, slotValues } from './slots';
import { CLARIFY_QUESTION, OPEN_QUESTION } from './speech';

const domain = bankingDomain();
const bank = domain.bank;
const core = domain.taxonomy.filter((e) => e.core);
const FACTS: CustomerFacts = {
  merchant: 'Blue Bottle Coffee',
  amount: 42.5,
  datePhrase: 'last Tuesday',
  channel: 'contactless',
  place: 'Leeds',
  account: 'savings',
  cardLast4: '4242',
};
const NAME = 'Dana Reyes';
const values = slotValues(FACTS, NAME);
const fill = (t: string) => fillSlots(t, values);

const obsOf = (intent: string, dialogue: CaObservation['dialogue'] = []): CaObservation => ({
  intent,
  situation: 'unrecognized_charge',
  facts: FACTS,
  name: NAME,
  dialogue,
});
const afterQuestion = (q = CLARIFY_QUESTION, answered = 0): CaObservation['dialogue'] => {
  const d: { role: 'customer' | 'agent'; text: string }[] = [{ role: 'customer', text: 'Something odd is on my account.' }];
  for (let i = 0; i < answered; i++) d.push({ role: 'agent', text: OPEN_QUESTION }, { role: 'customer', text: 'It was a while ago.' });
  d.push({ role: 'agent', text: q });
  return d;
};
const PLAIN: CaChoice = { directness: 'direct', detail: 0, decoy: null, hedge: false, tone: 'neutral', withhold: false };

/** Which detail kinds' values a text states. */
function factsIn(text: string): DetailKind[] {
  const kinds: DetailKind[] = [];
  if (text.includes(values.merchant)) kinds.push('merchant');
  if (text.includes(values.amount)) kinds.push('amount');
  if (text.includes(values.date)) kinds.push('date');
  if (text.includes(values.channel) || text.includes(values.place)) kinds.push('where');
  return kinds;
}

/**
 * Every opening surface form is head + tail: head = lead (tone prefix, hedge) joined to a bank
 * sentence, tail = detail clause and decoy cue. The two sets are enumerated exactly (strings,
 * deduplicated) over every value of every head; the count of whole openings is |heads|·|tails|
 * once no head is a proper prefix of another (then head + tail splits one way only).
 */
function openingSpace(intent: string, own: DomainTool, directness: readonly CaChoice['directness'][] = CA_DIRECTNESS) {
  const heads = new Set<string>();
  for (const d of directness) {
    for (const body of openingSentences(bank, intent, d)) {
      for (const tone of CA_TONES) {
        for (const hedge of [false, true]) {
          for (const t of openingTonePrefixes(bank, tone)) for (const h of hedgePhrases(bank, hedge)) heads.add(fill(joinLead(leadOf(t, h), body)));
        }
      }
    }
  }
  return { heads, tails: tailsFor(own) };
}

const tailCache = new Map<DomainTool, Set<string>>();
/** Detail clause and decoy cue, over every detail level, withholding and decoy of another tool. */
function tailsFor(own: DomainTool): Set<string> {
  const hit = tailCache.get(own);
  if (hit) return hit;
  const details = new Set<string>();
  for (const level of CA_DETAIL_LEVELS)
    for (const withhold of [false, true]) for (const t of openingDetailTemplates(bank, level, withhold)) details.add(fill(t));
  const tails = new Set<string>();
  for (const decoy of [null, ...DOMAIN_TOOLS.filter((t) => t !== own)]) {
    for (const c of decoySentences(bank, decoy)) {
      const cue = fill(c);
      for (const d of details) tails.add(joinSentences([d, cue]));
    }
  }
  tailCache.set(own, tails);
  return tails;
}

function isPrefixFree(xs: Iterable<string>): boolean {
  const sorted = [...xs].sort();
  // If x is a proper prefix of some y, it is a prefix of its successor in sorted order.
  return sorted.every((x, i) => i + 1 === sorted.length || !sorted[i + 1]!.startsWith(x));
}

describe('CaChoice heads', () => {
  it('has eight heads of sizes 3, 4, 6, 2, 3, 2, 2, 5 and encodes every choice one-to-one', () => {
    expect(CA_HEAD_SIZES).toEqual([3, 4, 6, 2, 3, 2, 2, 5]);
    expect(CA_HEAD_OFFSETS).toEqual([0, 3, 7, 13, 15, 18, 20, 22]);
    const all = allCaChoices();
    expect(all).toHaveLength(8640);
    const keys = new Set(all.map((c) => encodeCaChoice(c).join(',')));
    expect(keys.size).toBe(8640);
    for (const c of all) expect(decodeCaChoice(encodeCaChoice(c))).toEqual(c);
    // A choice without a placement or a phrasing (the scripted CA's) states its need first, in a sentence drawn at random.
    expect(encodeCaChoice(PLAIN).slice(-2)).toEqual([0, 0]);
    expect(() => decodeCaChoice([0, 4, 0, 0, 0, 0, 0, 0])).toThrow(/detail index 4/);
    expect(() => decodeCaChoice([0, 0, 0, 0, 0, 0, 0, 5])).toThrow(/phrasing index 5/);
    expect(() => encodeCaChoice({ ...PLAIN, tone: 'angry' as never })).toThrow(/tone = "angry"/);
  });
});

describe('reachable opening surface forms', () => {
  it('every core intent has at least 10,000 distinct openings from one set of facts', () => {
    const counts: Record<string, number> = {};
    for (const e of core) {
      const { heads, tails } = openingSpace(e.intent, e.tool);
      expect(isPrefixFree(heads), e.intent).toBe(true);
      counts[e.intent] = heads.size * tails.size;
    }
    const min = Math.min(...Object.values(counts));
    console.log(
      `reachable openings per core intent: min ${min.toLocaleString('en')} (${Object.entries(counts)
        .map(([k, v]) => `${k} ${v.toLocaleString('en')}`)
        .join(', ')})`,
    );
    expect(Object.keys(counts)).toHaveLength(core.length);
    expect(min).toBeGreaterThanOrEqual(10_000);
  });

  it('what renderCaChoice says at the opening lies in that space', () => {
    const rng = new Rng(5);
    const all = allCaChoices();
    for (const e of core.slice(0, 5)) {
      const { heads, tails } = openingSpace(e.intent, e.tool);
      const headList = [...heads];
      for (let i = 0; i < 60; i++) {
        const choice = rng.pick(all.filter((c) => c.decoy !== e.tool && c.placement === 'need-first'));
        const text = renderCaChoice(choice, obsOf(e.intent), bank, rng);
        const head = headList.find((h) => text === h || text.startsWith(`${h} `));
        expect(head, text).toBeDefined();
        const tail = text.slice(head!.length + 1);
        expect(tail === '' || tails.has(tail), text).toBe(true);
      }
    }
  });
});

describe('placement', () => {
  it('context-first buries the need after the detail and the decoy; need-first states it first', () => {
    for (const e of core.slice(0, 4)) {
      const decoy = DOMAIN_TOOLS.find((t) => t !== e.tool)!;
      const choice: CaChoice = { ...PLAIN, detail: 2, decoy, placement: 'context-first' };
      // No tone prefix, so the need sentence is the whole of a plain opening drawn with the same seed.
      const quiet = { ...bank, tones: { ...bank.tones, neutral: [] } };
      for (let seed = 0; seed < 10; seed++) {
        const need = renderCaChoice(PLAIN, obsOf(e.intent), quiet, new Rng(seed));
        const buried = renderCaChoice(choice, obsOf(e.intent), quiet, new Rng(seed));
        const first = renderCaChoice({ ...choice, placement: 'need-first' }, obsOf(e.intent), quiet, new Rng(seed));
        // The same parts (the same draws) in another order: the need ends one and starts the other.
        expect(buried.split(' ').sort()).toEqual(first.split(' ').sort());
        expect(first.startsWith(need), `${first} | ${need}`).toBe(true);
        expect(buried.endsWith(need), `${buried} | ${need}`).toBe(true);
        expect(buried).not.toBe(first);
      }
    }
  });
});

describe('phrasing', () => {
  it('says the k-th bank sentence of the chosen directness (k mod their count) whatever the seed; null draws one at random', () => {
    const quiet = { ...bank, tones: { ...bank.tones, neutral: [] } };
    for (const e of core.slice(0, 6)) {
      for (const directness of CA_DIRECTNESS) {
        const sentences = openingSentences(bank, e.intent, directness).map(fill);
        for (const k of [0, 1, 2, 3] as const) {
          const said = new Set(
            Array.from({ length: 8 }, (_, seed) => renderCaChoice({ ...PLAIN, directness, phrasing: k }, obsOf(e.intent), quiet, new Rng(seed))),
          );
          expect([...said], `${e.intent} ${directness} ${k}`).toEqual([sentences[k % sentences.length]]);
        }
        const drawn = new Set(Array.from({ length: 40 }, (_, seed) => renderCaChoice({ ...PLAIN, directness }, obsOf(e.intent), quiet, new Rng(seed))));
        for (const t of drawn) expect(sentences).toContain(t);
        if (sentences.length > 1) expect(drawn.size).toBeGreaterThan(1);
      }
    }
  });
});

describe('joinLead', () => {
  it('runs a hedge on into the sentence, lower-casing its first word, one-letter words included', () => {
    expect(joinLead('I might be wrong, but', "There's a charge.")).toBe("I might be wrong, but there's a charge.");
    expect(joinLead('I might be wrong, but', 'A line on my statement is odd.')).toBe('I might be wrong, but a line on my statement is odd.');
    expect(joinLead('I might be wrong, but', "I'm owed money.")).toBe("I might be wrong, but I'm owed money.");
    expect(joinLead('I might be wrong, but', 'ATM fees again.')).toBe('I might be wrong, but ATM fees again.');
    expect(joinLead('I might be wrong, but', '{merchant} took money.')).toBe('I might be wrong, but {merchant} took money.');
    expect(joinLead('Hello.', 'A line on my statement is odd.')).toBe('Hello. A line on my statement is odd.');
  });
});

describe('renderCaChoice', () => {
  const dialogues: [string, CaObservation['dialogue']][] = [
    ['opening', []],
    ['answer', afterQuestion()],
    ['open question', afterQuestion(OPEN_QUESTION)],
    [
      'acknowledge',
      [
        { role: 'customer', text: 'Hi.' },
        { role: 'agent', text: "I've filed a dispute for the $42.50 charge." },
      ],
    ],
  ];

  it('speaks natural language with every slot filled, whatever the choice and turn', () => {
    const rng = new Rng(1);
    const all = allCaChoices();
    for (const e of core) {
      for (const [, dialogue] of dialogues) {
        for (let i = 0; i < 25; i++) {
          const text = renderCaChoice(rng.pick(all), obsOf(e.intent, dialogue), bank, rng);
          expect(isNaturalLanguage(text), text).toBe(true);
          expect(text, text).not.toMatch(/[{}]/);
          expect(text).toBe(text.trim());
          expect(text).not.toMatch(/\s{2}/);
        }
      }
    }
  });

  it('reads the turn from the spoken dialogue', () => {
    expect(caTurnState(obsOf('x')).kind).toBe('opening');
    expect(caTurnState(obsOf('x', afterQuestion())).kind).toBe('answer');
    expect(caTurnState(obsOf('x', afterQuestion(CLARIFY_QUESTION, 1)))).toMatchObject({ kind: 'answer', questionsAnswered: 1, customerTurns: 2 });
    expect(caTurnState(obsOf('x', dialogues[3]![1]))).toMatchObject({ kind: 'acknowledge', explained: true });
    // The agent said nothing audible since the customer spoke: the need is said again.
    expect(caTurnState(obsOf('x', [{ role: 'customer', text: 'Hello?' }])).kind).toBe('opening');
    expect(
      caTurnState(
        obsOf('x', [
          { role: 'customer', text: 'Hi' },
          { role: 'agent', text: 'Done. Anything else?' },
        ]),
      ).kind,
    ).toBe('acknowledge');
  });

  it('thanks the agent after an explanation', () => {
    const rng = new Rng(2);
    for (let i = 0; i < 20; i++) expect(bank.acknowledgements).toContain(renderCaChoice(PLAIN, obsOf('unrecognized_charge', dialogues[3]![1]), bank, rng));
  });

  it('withholding: no detail clause in the opening, one fact for the first question, then all asked', () => {
    const intent = 'unrecognized_charge';
    for (let seed = 0; seed < 30; seed++) {
      const held = renderCaChoice({ ...PLAIN, detail: 3, withhold: true }, obsOf(intent), bank, new Rng(seed));
      expect(held).toBe(renderCaChoice({ ...PLAIN, detail: 0 }, obsOf(intent), bank, new Rng(seed)));
      const told = renderCaChoice({ ...PLAIN, detail: 3 }, obsOf(intent), bank, new Rng(seed));
      expect(told.length).toBeGreaterThan(held.length);

      const first = renderCaChoice({ ...PLAIN, detail: 3, withhold: true }, obsOf(intent, afterQuestion()), bank, new Rng(seed));
      expect(factsIn(first), first).toHaveLength(1);
      // The one fact is one the question asked for (the merchant or the amount).
      expect(['merchant', 'amount']).toContain(factsIn(first)[0]);
      // After one answered question withholding is used up: the customer states what was asked, and one more.
      const second = renderCaChoice({ ...PLAIN, detail: 3, withhold: true }, obsOf(intent, afterQuestion(CLARIFY_QUESTION, 1)), bank, new Rng(seed));
      expect(factsIn(second), second).toHaveLength(3);
      expect(factsIn(second).slice(0, 2), second).toEqual(['merchant', 'amount']);
    }
  });

  it('answers a question with as many facts as the detail level says, at least one', () => {
    const rng = new Rng(9);
    for (const level of CA_DETAIL_LEVELS) {
      for (let i = 0; i < 20; i++) {
        const text = renderCaChoice({ ...PLAIN, detail: level }, obsOf('duplicate_charge', afterQuestion(OPEN_QUESTION)), bank, rng);
        expect(factsIn(text), text).toHaveLength(Math.max(1, level));
      }
    }
    // Detail clauses in the opening state exactly their level's kinds.
    for (const level of [1, 2, 3] as const) for (const t of openingDetailTemplates(bank, level, false)) expect(detailKindsOf(t), t).toHaveLength(level);
  });

  it('vague openings with decoys name no reveal phrase of the intent unless the bank sentence does', () => {
    for (const e of core) {
      const clean = openingSentences(bank, e.intent, 'vague').filter((s) => !revealsIntent(fill(s), e.reveals));
      expect(clean.length, e.intent).toBeGreaterThan(0);
      const { heads } = openingSpaceFrom(clean);
      const { tails } = openingSpace(e.intent, e.tool, ['vague']);
      const decoyTails = [...tails].filter((t) => t !== '');
      const bad = [...heads, ...decoyTails].filter((x) => revealsIntent(x, e.reveals));
      // A phrase could straddle head and tail: it then has fewer characters than itself on either side.
      const w = Math.max(...e.reveals.map((r) => r.length)) - 1;
      const ends = new Set([...heads].map((h) => h.slice(-w)));
      const starts = new Set(decoyTails.map((t) => t.slice(0, w)));
      for (const a of ends) for (const b of starts) if (revealsIntent(`${a} ${b}`, e.reveals)) bad.push(`${a} | ${b}`);
      expect(bad, e.intent).toEqual([]);
    }

    function openingSpaceFrom(bodies: string[]) {
      const heads = new Set<string>();
      for (const body of bodies) {
        for (const tone of CA_TONES) {
          for (const hedge of [false, true])
            for (const t of openingTonePrefixes(bank, tone)) for (const h of hedgePhrases(bank, hedge)) heads.add(fill(joinLead(leadOf(t, h), body)));
        }
      }
      return { heads };
    }
  });

  it('is deterministic for a seed and fails clearly on an intent the bank lacks', () => {
    const c: CaChoice = { directness: 'indirect', detail: 2, decoy: 'transfer_funds', hedge: true, tone: 'anxious', withhold: false };
    expect(renderCaChoice(c, obsOf('card_declined'), bank, new Rng(4))).toBe(renderCaChoice(c, obsOf('card_declined'), bank, new Rng(4)));
    expect(() => renderCaChoice(c, obsOf('no_such_intent'), bank, new Rng(4))).toThrow(/no utterances for intent "no_such_intent"/);
  });
});
