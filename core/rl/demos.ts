/**
 * Demonstrations for the DA's bootstrap SFT (RL-ADA §3.2, Phase 0): behaviour cloning of a
 * privileged expert on the DA's own partial view.
 *
 * Two sources, both labelled with a DA choice and, where known, the customer's intent (the
 * intent head's target, which feeds the `thinking` hypotheses):
 *
 * - **Episodes**: the expert DA (`core/agents/expert-da.ts`), which knows the intent's tool, plays
 *   the scripted CA in the real CustomerEnvironment on a synthetic scenario for *every* intent of
 *   the taxonomy; each DA decision becomes one sample (the observation it acted on, its choice).
 * - **Routing**: single utterances (the bank's, with slots filled from seeded worlds, or imported
 *   Banking77 rows) as the observation "customer said this, lookup_account succeeded", labelled
 *   with the intent's tool.
 *
 * Bank utterances are split by a seeded hash into train and held-out slices, so that routing
 * accuracy is measured on sentences the DA never trained on (not even inside an episode).
 */
import {
  CA_TONES,
  decoySentences,
  detailKindSubsets,
  detailTemplates,
  hedgePhrases,
  joinLead,
  joinSentences,
  leadOf,
  openingTonePrefixes,
} from '../agents/ca-choices';
import type { DaChoice } from '../agents/da-actions';
import { dialogueState, renderDaChoice } from '../agents/da-actions';
import { ExpertDa, expertChoice, recoverable } from '../agents/expert-da';
import { CAMOUFLAGED_CA_STYLE, ScriptedCa, DEFAULT_CA_STYLE } from '../agents/scripted-ca';
import type { ScriptedCaStyle } from '../agents/scripted-ca';
import { fillSlots, slotValues } from '../agents/slots';
import { DEFAULT_CONFIG } from '../config';
import { DOMAIN_TOOLS } from '../domain/types';
import type { BankUtterance, Directness, Domain, DomainTool, Scenario, Situation, TaxonomyEntry, UtteranceBank } from '../domain/types';
import { deriveSeed, Rng } from '../random';
import { executeTool, generateWorld } from '../world/backend';
import { CustomerEnvironment } from '../world/environment';
import type { DaObservation } from '../world/environment';
import type { Transcript, Turn } from '../world/transcript';
import { parseDaOutput } from '../wire';

/** A supervised target: the DA's choice and, when known, the customer's intent. */
export interface DaTarget {
  choice: DaChoice;
  intent?: string;
}

/** One demonstration: what the DA saw and what it should do. */
export interface DaDemo {
  obs: DaObservation;
  target: DaTarget;
  source: 'episode' | 'routing';
}

/** A customer utterance with its intent and the tool that intent needs. */
export interface RoutingItem {
  text: string;
  intent: string;
  tool: DomainTool;
  /** How directly a bank sentence states the need (absent for corpus rows and taxonomy phrases). */
  style?: Directness;
}

// ------------------------------------------------------------------ synthetic scenarios

/** The account situation that fits an intent, from its tool and name. */
export function situationFor(entry: Pick<TaxonomyEntry, 'intent' | 'tool'>): Situation {
  const name = entry.intent.toLowerCase();
  switch (entry.tool) {
    case 'dispute_charge':
      if (/twice|duplicate/.test(name)) return 'duplicate_charge';
      if (/refund/.test(name)) return 'refund_missing';
      return 'unrecognized_charge';
    case 'get_transactions':
      return /merchant/.test(name) ? 'unknown_merchant' : 'recent_activity';
    case 'check_card_status':
      return 'card_declined';
    case 'transfer_funds':
      return 'internal_transfer';
    case 'transfer_to_human':
      return /fraud|compromised|stolen|lost/.test(name) ? 'compromised' : 'account_admin';
  }
}

/** A scenario for one intent: its situation, the intent's tool, details seeded by the world. */
export function synthScenario(entry: Pick<TaxonomyEntry, 'intent' | 'tool'>): Scenario {
  return {
    // The intent verbatim: Banking77 spells two intents apart only by case (Refund_not_showing_up).
    id: `synth:${entry.intent}`,
    title: `Synthetic: ${entry.intent}`,
    set: 'arena',
    fraudReference: false,
    ambiguity: 'clear',
    intents: [entry.intent],
    expectedTool: entry.tool,
    account: { situation: situationFor(entry) },
    description: `Demonstration scenario for the intent ${entry.intent} (routes to ${entry.tool}).`,
  };
}

// ------------------------------------------------------------------ seeded splits

/** A stable number in [0, 1) from a seed and a key. */
function unitHash(seed: number, key: string): number {
  return (deriveSeed(seed, key) >>> 0) / 4294967296;
}

/**
 * Splits rows by a seeded hash of `key(row)`: a row is held out when its hash falls below
 * `heldoutFraction`. The same key always lands in the same slice for a seed, whatever the order.
 */
export function hashSplit<T>(rows: readonly T[], key: (row: T) => string, heldoutFraction: number, seed: number): { train: T[]; heldout: T[] } {
  if (!(heldoutFraction >= 0 && heldoutFraction < 1)) throw new RangeError(`heldoutFraction must be in [0, 1), got ${heldoutFraction}`);
  const train: T[] = [];
  const heldout: T[] = [];
  for (const r of rows) (unitHash(seed, key(r)) < heldoutFraction ? heldout : train).push(r);
  return { train, heldout };
}

/** Default share of the bank's utterances held out from training. */
export const BANK_HELDOUT_FRACTION = 0.15;

/**
 * The bank's utterances split into train and held-out slices by (intent, text). Every intent keeps
 * at least one training utterance, so the CA can still act it out from the train slice.
 */
export function splitBank(
  utterances: readonly BankUtterance[],
  seed: number,
  heldoutFraction = BANK_HELDOUT_FRACTION,
): { train: BankUtterance[]; heldout: BankUtterance[] } {
  const { train, heldout } = hashSplit(utterances, (u) => `${u.intent}\u0000${u.text}`, heldoutFraction, seed);
  const covered = new Set(train.map((u) => u.intent));
  const keep: BankUtterance[] = [];
  for (const u of heldout) {
    if (covered.has(u.intent)) keep.push(u);
    else {
      covered.add(u.intent);
      train.push(u);
    }
  }
  return { train, heldout: keep };
}

/**
 * The bank in three: `heldout` as splitBank draws it (measurement only), and its train slice
 * split again into `daTrain` (DA0's demonstrations) and `caOnly`: sentences only the training
 * CAs speak, so the CA has openings DA0 never saw and a misroute to earn, and the DA meets them
 * first in the arena. `caOnlyShare` 0 (the default) leaves `caOnly` empty. Every intent keeps a
 * DA-train sentence.
 */
export function bankSlices(
  utterances: readonly BankUtterance[],
  seed: number,
  opts: { heldoutFraction?: number; caOnlyShare?: number } = {},
): { daTrain: BankUtterance[]; caOnly: BankUtterance[]; heldout: BankUtterance[] } {
  const split = splitBank(utterances, seed, opts.heldoutFraction);
  const share = opts.caOnlyShare ?? 0;
  if (!(share >= 0 && share < 1)) throw new RangeError(`bankSlices: caOnlyShare must be in [0, 1), got ${share}`);
  if (share === 0) return { daTrain: split.train, caOnly: [], heldout: split.heldout };
  const inner = splitBank(split.train, deriveSeed(seed, 'ca-only'), share);
  return { daTrain: inner.train, caOnly: inner.heldout, heldout: split.heldout };
}

/**
 * A validation slice of the bank's train slice (splitBank at `seed`): a share of its sentences for
 * choosing settings on data a run never saw, the held-out slice left untouched. Every intent keeps
 * one of its train sentences, so the bank without the validation slice splits (at the same seed)
 * into the same held-out slice and a train slice less the validation sentences.
 */
export function validationSlice(utterances: readonly BankUtterance[], seed: number, share: number): { kept: BankUtterance[]; validation: BankUtterance[] } {
  if (!(share > 0 && share < 1)) throw new RangeError(`validationSlice: share must be in (0, 1), got ${share}`);
  const key = (u: BankUtterance) => `${u.intent}\u0000${u.text}`;
  const inner = hashSplit(hashSplit(utterances, key, BANK_HELDOUT_FRACTION, seed).train, key, share, deriveSeed(seed, 'validation'));
  const left = new Set(inner.train.map((u) => u.intent));
  const validation = new Set<BankUtterance>();
  for (const u of inner.heldout) {
    if (left.has(u.intent)) validation.add(u);
    else left.add(u.intent);
  }
  return { kept: utterances.filter((u) => !validation.has(u)), validation: [...validation] };
}

/** The domain with its bank reduced to `utterances` (e.g. the train slice, for the CA). */
export function withUtterances(domain: Domain, utterances: readonly BankUtterance[]): Domain {
  return { ...domain, bank: { ...domain.bank, utterances: [...utterances] } };
}

// ------------------------------------------------------------------ routing demonstrations

function toolOf(domain: Pick<Domain, 'taxonomy'>): Map<string, DomainTool> {
  return new Map(domain.taxonomy.map((e) => [e.intent, e.tool]));
}

/**
 * Bank utterances as routing items, each template filled `fills` times with slot values from a
 * seeded world of its intent's synthetic scenario.
 */
export function bankRoutingItems(
  domain: Pick<Domain, 'taxonomy'>,
  utterances: readonly BankUtterance[],
  opts: { fills?: number; seed?: number } = {},
): RoutingItem[] {
  const fills = opts.fills ?? 1;
  const seed = opts.seed ?? 0;
  const tools = toolOf(domain);
  const out: RoutingItem[] = [];
  for (const u of utterances) {
    const tool = tools.get(u.intent);
    if (!tool) throw new Error(`bank utterance "${u.text}": intent "${u.intent}" is not in the taxonomy`);
    for (let k = 0; k < fills; k++) {
      const world = generateWorld(synthScenario({ intent: u.intent, tool }), new Rng(deriveSeed(seed, 'fill', u.intent, u.text, k)));
      out.push({ text: fillSlots(u.text, slotValues(world.facts, world.customer.name)), intent: u.intent, tool, style: u.style });
    }
  }
  return out;
}

/** How often a camouflaged routing item carries each part of a CA opening. */
export interface CamouflageRates {
  /** A decoy cue sentence from another tool's domain. */
  decoy: number;
  /** A hedge ("I might be wrong, but"). */
  hedge: number;
  /** A detail clause of 1–3 facts (merchant, amount, date, channel or place). */
  detail: number;
}

/**
 * Half the items with a decoy: the builtin CA learns to add decoys far more often than the scripted
 * CA's 0.3 (45% of openings by the last match of a paper run), and a DA that has rarely seen them
 * routes on the decoy's words.
 */
export const DEFAULT_CAMOUFLAGE: CamouflageRates = { decoy: 0.5, hedge: 0.4, detail: 0.5 };

/**
 * Bank utterances dressed as a CA opening (`ca-choices.ts`'s parts, RL-ADA's contextual
 * camouflage): a tone prefix, maybe a hedge, the sentence itself, maybe a detail clause and maybe
 * a decoy cue of another tool's domain, slots filled from a seeded world of the intent's synthetic
 * scenario. Each sentence yields `variants` items. The words that carry the need are still only the
 * sentence's own, so a DA trained on them learns to route on those and to discount the rest.
 */
export function camouflagedRoutingItems(
  domain: Pick<Domain, 'taxonomy' | 'bank'>,
  utterances: readonly BankUtterance[],
  opts: { variants: number; seed: number; rates?: CamouflageRates },
): RoutingItem[] {
  const rates = opts.rates ?? DEFAULT_CAMOUFLAGE;
  const tools = toolOf(domain);
  const bank = domain.bank;
  const out: RoutingItem[] = [];
  for (const u of utterances) {
    const tool = tools.get(u.intent);
    if (!tool) throw new Error(`bank utterance "${u.text}": intent "${u.intent}" is not in the taxonomy`);
    for (let k = 0; k < opts.variants; k++) {
      const rng = new Rng(deriveSeed(opts.seed, 'camouflage', u.intent, u.text, k));
      const lead = leadOf(rng.pick(openingTonePrefixes(bank, rng.pick(CA_TONES))), rng.pick(hedgePhrases(bank, rng.chance(rates.hedge))));
      const detail = rng.chance(rates.detail) ? rng.pick(detailTemplates(bank, rng.pick(detailKindSubsets(rng.int(1, 3))))) : '';
      const decoy = rng.chance(rates.decoy) ? rng.pick(decoySentences(bank, rng.pick(DOMAIN_TOOLS.filter((t) => t !== tool)))) : '';
      const template = joinSentences([joinLead(lead, u.text), detail, decoy]);
      const world = generateWorld(synthScenario({ intent: u.intent, tool }), rng.fork('world'));
      out.push({ text: fillSlots(template, slotValues(world.facts, world.customer.name)), intent: u.intent, tool });
    }
  }
  return out;
}

/**
 * The taxonomy's own words as routing items: each intent's `reveals` phrases ("charged twice")
 * and its name in words ("card swallowed"). Short, but in the customer's vocabulary; they add
 * lexical coverage that the bank's handful of sentences per intent lacks.
 */
export function taxonomyRoutingItems(domain: Pick<Domain, 'taxonomy'>): RoutingItem[] {
  return domain.taxonomy.flatMap((e) =>
    [...e.reveals, e.intent.replace(/[_?]+/g, ' ').trim().toLowerCase()].map((text) => ({ text, intent: e.intent, tool: e.tool })),
  );
}

/** Imported corpus rows (Banking77 `text,category`) as routing items; unknown intents are an error naming the row. */
export function corpusRoutingItems(domain: Pick<Domain, 'taxonomy'>, rows: readonly { text: string; intent: string; line?: number }[]): RoutingItem[] {
  const tools = toolOf(domain);
  return rows.map((r) => {
    const tool = tools.get(r.intent);
    if (!tool) throw new Error(`corpus row${r.line === undefined ? '' : ` at line ${r.line}`}: intent "${r.intent}" is not in the taxonomy`);
    return { text: r.text, intent: r.intent, tool };
  });
}

/** A sentence as compared across sources: lower case, letters, digits and single spaces. */
const sentenceKey = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9 ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * Routing items whose sentence is none of the bank's (compared by sentenceKey): corpus rows a run
 * adds to DA0's SFT must not teach it a sentence of the bank's held-out slice, which held-out
 * evaluation's CA speaks (Banking77's train split and the bank share 12 such sentences).
 */
export function withoutBankSentences<T extends { text: string }>(items: readonly T[], bank: Pick<UtteranceBank, 'utterances'>): T[] {
  const said = new Set(bank.utterances.map((u) => sentenceKey(u.text)));
  return items.filter((it) => !said.has(sentenceKey(it.text)));
}

/**
 * The observation at the routing decision: the customer said `text` (one utterance) and
 * lookup_account succeeded. The account behind it is a fixed seeded world; only the fact of
 * verification matters to the DA's choice.
 */
export function routingObservation(text: string, opts: { seed?: number; maxDaTurns?: number } = {}): DaObservation {
  const { phone, lookup } = verifiedCaller(opts.seed ?? 0);
  const turns: Turn[] = [{ role: 'customer', text }, lookup];
  return { caller: { phone }, turns, daSteps: 1, maxDaTurns: opts.maxDaTurns ?? DEFAULT_CONFIG.arena.maxDaTurns };
}

/** A caller and their successful lookup_account turn, per seed (memoised: turns are never mutated). */
const callers = new Map<number, { phone: string; lookup: Turn }>();
function verifiedCaller(seed: number): { phone: string; lookup: Turn } {
  const hit = callers.get(seed);
  if (hit) return hit;
  const rng = new Rng(seed);
  const world = generateWorld(synthScenario({ intent: 'routing', tool: 'transfer_to_human' }), rng.fork('world'));
  const phone = world.customer.phone;
  const before: DaObservation = { caller: { phone }, turns: [], daSteps: 0, maxDaTurns: DEFAULT_CONFIG.arena.maxDaTurns };
  const raw = renderDaChoice('lookup_account', before, 'verify identity');
  const parsed = parseDaOutput(raw);
  if (!parsed.ok) throw new Error(`routingObservation: the lookup rendering does not parse (${parsed.error})`);
  const lookup: Turn = {
    role: 'agent',
    raw,
    action: parsed.action,
    toolResult: executeTool(world, 'lookup_account', parsed.action.tool_args, rng.fork('tools')),
  };
  if (callers.size > 64) callers.clear();
  const entry = { phone, lookup };
  callers.set(seed, entry);
  return entry;
}

/**
 * Routing items as first decisions: the customer has just said the item's words and nothing else
 * has happened. The expert asks for the charge or the amount when the intent's tool needs one the
 * words lack, and otherwise verifies. Expert episodes teach this too, but only on the scripted
 * CA's openings (a few per intent); CA openings with hedges and decoys need it as much as routing
 * does, or the DA verifies at once and calls dispute_charge without the charge (unresolved).
 */
export function openingDemos(items: readonly RoutingItem[], opts: { seed?: number; maxDaTurns?: number } = {}): DaDemo[] {
  const { phone } = verifiedCaller(opts.seed ?? 0);
  const maxDaTurns = opts.maxDaTurns ?? DEFAULT_CONFIG.arena.maxDaTurns;
  return items.map((it) => {
    const obs: DaObservation = { caller: { phone }, turns: [{ role: 'customer', text: it.text }], daSteps: 0, maxDaTurns };
    return { obs, target: { choice: expertChoice(it.tool, obs), intent: it.intent }, source: 'routing' };
  });
}

/** Routing items as demonstrations: after a successful lookup, call the intent's tool. */
export function routingDemos(items: readonly RoutingItem[], opts: { maxDaTurns?: number } = {}): DaDemo[] {
  return items.map((it) => ({ obs: routingObservation(it.text, opts), target: { choice: it.tool, intent: it.intent }, source: 'routing' }));
}

// ------------------------------------------------------------------ expert episodes

export interface ExpertEpisode {
  transcript: Transcript;
  /** One sample per DA decision, in order. */
  demos: DaDemo[];
}

/**
 * Plays the expert against `ca` on `scenario` (its first intent, or the env's draw) and slices the
 * episode into per-decision samples. Seeded like an arena episode.
 */
export function playExpertEpisode(
  domain: Pick<Domain, 'taxonomy'>,
  scenario: Scenario,
  seed: number,
  ca: ScriptedCa,
  maxDaTurns = DEFAULT_CONFIG.arena.maxDaTurns,
  maxAsks?: number,
): ExpertEpisode {
  const env = new CustomerEnvironment(maxDaTurns);
  env.reset(scenario, seed);
  const intent = env.state().intent;
  const tool = toolOf(domain).get(intent) ?? scenario.expectedTool;
  const expert = new ExpertDa(tool, maxAsks);
  const caRng = new Rng(seed).fork('ca');
  const demos: DaDemo[] = [];
  for (let next = env.state().next; next !== null;) {
    if (next === 'customer') {
      next = env.step({ role: 'customer', text: ca.speak(env.observeCustomer(), caRng) }).next;
      continue;
    }
    const live = env.observeAgent();
    const obs: DaObservation = { ...live, turns: [...live.turns] }; // the environment appends to its own array
    const { choice, raw } = expert.decide(obs);
    demos.push({ obs, target: { choice, intent }, source: 'episode' });
    next = env.step({ role: 'agent', raw }).next;
  }
  return { transcript: env.transcript(), demos };
}

/**
 * Hasty-expert episodes (the expert calls dispute_charge before asking which charge it is) whose
 * first call could not pin the charge down, up to `wanted` of them in at most 40 tries each (most
 * openings name the charge, so the hasty call usually succeeds): the recovery states a careful
 * expert never reaches but a learned DA does. Each comes with its seed (`seedOf(k)` of try k) and
 * its demos from the first domain call on.
 */
export function hastyRecoveries(
  domain: Pick<Domain, 'taxonomy'>,
  scenario: Scenario,
  ca: ScriptedCa,
  maxDaTurns: number | undefined,
  wanted: number,
  seedOf: (k: number) => number,
): { seed: number; transcript: ExpertEpisode['transcript']; after: DaDemo[] }[] {
  const out: { seed: number; transcript: ExpertEpisode['transcript']; after: DaDemo[] }[] = [];
  for (let k = 0; out.length < wanted && k < wanted * 40; k++) {
    const seed = seedOf(k);
    const { transcript, demos } = playExpertEpisode(domain, scenario, seed, ca, maxDaTurns, 0);
    const after = demos.filter((d) => dialogueState(d.obs).domainCalls.length > 0);
    if (after.length > 0 && recoverable(dialogueState(after[0]!.obs))) out.push({ seed, transcript, after });
  }
  return out;
}

export interface ExpertDemoOptions {
  /** Episodes per intent. */
  episodesPerIntent: number;
  seed: number;
  /** Utterances the CA may draw on (default: the whole bank); pass the train slice to keep a held-out slice clean. */
  utterances?: readonly BankUtterance[];
  /** The scripted CA's style (default DEFAULT_CA_STYLE). */
  style?: ScriptedCaStyle;
  maxDaTurns?: number;
  /**
   * Episodes per intent of a hasty expert that calls the tool before asking for the charge and
   * fails to pin it down (dispute intents only): only the decisions after its first tool call are kept, which teach recovering
   * from a call that could not identify the charge (ask which one, call again) — a state the
   * careful expert never reaches but a learned DA does. Default: episodesPerIntent.
   */
  recoveryEpisodesPerIntent?: number;
  /**
   * Expert episodes per intent against a camouflaged customer (`camouflagedStyle`), besides the
   * `style` ones (default: episodesPerIntent). A learned CA answers "which one?" with one fact, a
   * hedge and a decoy ("it was the $300 payment" from someone who wants foreign money); the
   * default style's tidy answers never taught the DA to keep routing on the need.
   */
  camouflagedEpisodesPerIntent?: number;
  /** The customer of the camouflaged and the hasty episodes (default CAMOUFLAGED_CA_STYLE). */
  camouflagedStyle?: ScriptedCaStyle;
  /**
   * Who answers the hasty expert (see RecoveryCustomer): 'camouflaged' (default) or 'plain', the
   * customer of the plain expert episodes (`style`).
   */
  recoveryCustomer?: RecoveryCustomer;
}

/**
 * The customer of the hasty-expert recovery episodes: the camouflaged one (one-fact answers with
 * hedges and decoys) or the plain one, whose openings leave the charge out half the time and whose
 * answers name it. The plain one teaches the procedure (call again once the charge is named)
 * without showing DA0 a camouflaged customer.
 */
export type RecoveryCustomer = 'camouflaged' | 'plain';

/** Expert episodes on a synthetic scenario for every intent of the taxonomy that the bank covers. */
export function expertEpisodeDemos(domain: Domain, opts: ExpertDemoOptions): DaDemo[] {
  const bankDomain = opts.utterances ? withUtterances(domain, opts.utterances) : domain;
  const covered = new Set(bankDomain.bank.utterances.map((u) => u.intent));
  const ca = new ScriptedCa(bankDomain, opts.style ?? DEFAULT_CA_STYLE);
  const camouflagedCa = new ScriptedCa(bankDomain, opts.camouflagedStyle ?? CAMOUFLAGED_CA_STYLE);
  const out: DaDemo[] = [];
  for (const entry of domain.taxonomy) {
    if (!covered.has(entry.intent)) continue;
    const scenario = synthScenario(entry);
    for (let k = 0; k < opts.episodesPerIntent; k++) {
      out.push(...playExpertEpisode(domain, scenario, deriveSeed(opts.seed, 'expert', entry.intent, k), ca, opts.maxDaTurns).demos);
    }
    for (let k = 0; k < (opts.camouflagedEpisodesPerIntent ?? opts.episodesPerIntent); k++) {
      out.push(...playExpertEpisode(domain, scenario, deriveSeed(opts.seed, 'expert-camouflaged', entry.intent, k), camouflagedCa, opts.maxDaTurns).demos);
    }
    if (entry.tool !== 'dispute_charge') continue; // the only tool whose call fails for want of a detail
    const wanted = opts.recoveryEpisodesPerIntent ?? opts.episodesPerIntent;
    const hastyCustomer = opts.recoveryCustomer === 'plain' ? ca : camouflagedCa;
    for (const r of hastyRecoveries(domain, scenario, hastyCustomer, opts.maxDaTurns, wanted, (k) => deriveSeed(opts.seed, 'hasty', entry.intent, k)))
      out.push(...r.after);
  }
  return out;
}

/**
 * Hasty-expert episodes per dispute intent in the bank demos. The recovery (ask which charge, call
 * again) is a rule of the dialogue state, but a net that sees it on a few dozen episodes learns it
 * for their words only: on held-out openings it ended the call after the customer named the charge.
 */
export const RECOVERY_EPISODES_PER_INTENT = 8;

export interface BankDemoOptions {
  seed: number;
  /** Expert episodes per intent (default 4). */
  episodesPerIntent?: number;
  /** Slot fillings per train utterance for routing demos (default 2). */
  fills?: number;
  /** Held-out share of the bank (default BANK_HELDOUT_FRACTION). */
  heldoutFraction?: number;
  /** Share of the train slice kept for the CA alone, out of every demonstration (default 0; see bankSlices). */
  caOnlyShare?: number;
  /** Add the taxonomy's phrases as routing demos (default true; see taxonomyRoutingItems). */
  taxonomyPhrases?: boolean;
  /** Camouflaged variants per train utterance as routing demos (default 3; see camouflagedRoutingItems). */
  camouflaged?: number;
  /** Of those, variants per train utterance also taught as the first decision (default 1; see openingDemos). */
  openings?: number;
  /** Hasty-expert episodes per dispute intent (default RECOVERY_EPISODES_PER_INTENT; see ExpertDemoOptions). */
  recoveryEpisodesPerIntent?: number;
  /** Who answers the hasty expert (default 'camouflaged'; see RecoveryCustomer). */
  recoveryCustomer?: RecoveryCustomer;
  /** Expert episodes per intent against the camouflaged customer (default episodesPerIntent; see ExpertDemoOptions). */
  camouflagedEpisodesPerIntent?: number;
  maxDaTurns?: number;
}

/**
 * The bootstrap demonstration set from the project's own bank: expert episodes and routing demos
 * on the train slice (plain, camouflaged as CA openings, plus the taxonomy's phrases), and the
 * held-out slice as routing items for evaluation. `routingItems` are the routing demos' texts with
 * their intents (what a text classifier trained on the same data sees; `host/routing-eval.ts`).
 */
export function bankDemos(
  domain: Domain,
  opts: BankDemoOptions,
): { demos: DaDemo[]; heldout: RoutingItem[]; trainUtterances: number; routingItems: RoutingItem[] } {
  const slices = bankSlices(domain.bank.utterances, opts.seed, opts);
  const split = { train: slices.daTrain, heldout: slices.heldout };
  const items = bankRoutingItems(domain, split.train, { fills: opts.fills ?? 2, seed: deriveSeed(opts.seed, 'train-fills') });
  if (opts.taxonomyPhrases ?? true) items.push(...taxonomyRoutingItems(domain));
  const camouflaged = opts.camouflaged ?? 3;
  const dressed =
    camouflaged > 0 ? camouflagedRoutingItems(domain, split.train, { variants: camouflaged, seed: deriveSeed(opts.seed, 'train-camouflage') }) : [];
  items.push(...dressed);
  const routing = routingDemos(items, opts);
  // Variant k of sentence i sits at i·camouflaged + k.
  const openings = Math.min(opts.openings ?? 1, camouflaged);
  routing.push(
    ...openingDemos(
      dressed.filter((_, j) => j % camouflaged < openings),
      opts,
    ),
  );
  const episodes = expertEpisodeDemos(domain, {
    episodesPerIntent: opts.episodesPerIntent ?? 4,
    seed: opts.seed,
    utterances: split.train,
    maxDaTurns: opts.maxDaTurns,
    recoveryEpisodesPerIntent: opts.recoveryEpisodesPerIntent ?? RECOVERY_EPISODES_PER_INTENT,
    ...(opts.recoveryCustomer ? { recoveryCustomer: opts.recoveryCustomer } : {}),
    ...(opts.camouflagedEpisodesPerIntent !== undefined ? { camouflagedEpisodesPerIntent: opts.camouflagedEpisodesPerIntent } : {}),
  });
  const heldout = bankRoutingItems(domain, split.heldout, { fills: 1, seed: deriveSeed(opts.seed, 'heldout-fills') });
  return { demos: [...episodes, ...routing], heldout, trainUtterances: split.train.length, routingItems: items };
}

// ------------------------------------------------------------------ intents beyond the arena

/** The two halves of the intents no shipped scenario names (otherIntentScenarios). */
export type OtherIntentPart = 'gym' | 'validation';

/**
 * Synthetic scenarios (synthScenario) for the intents that no arena or held-out scenario names and
 * that the bank speaks (at least one utterance in `bank`), split in two halves by a fixed hash of
 * the intent, the same for every seed: 'gym' for the DA's gyms to play beyond the arena
 * (`gym.daOtherIntents`), 'validation' to measure, without reading anything held out, how far a
 * DA's gains reach intents it never trained against the CA on. Held-out scenarios' intents are in
 * neither half: their scenarios stay a test of what no gym saw.
 */
export function otherIntentScenarios(
  domain: Pick<Domain, 'taxonomy' | 'scenarios'>,
  bank: Pick<UtteranceBank, 'utterances'>,
  part: OtherIntentPart,
): Scenario[] {
  const named = new Set(domain.scenarios.filter((s) => s.set === 'arena' || s.set === 'heldout').flatMap((s) => s.intents));
  const spoken = new Set(bank.utterances.map((u) => u.intent));
  return domain.taxonomy
    .filter((e) => !named.has(e.intent) && spoken.has(e.intent))
    .filter((e) => (unitHash(0, `other-intents:${e.intent}`) < 0.5 ? 'validation' : 'gym') === part)
    .map(synthScenario);
}
