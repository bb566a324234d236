/**
 * The customer's factored choice for one utterance, and how a choice becomes words.
 *
 * A CA backend (scripted or builtin neural) decides *how* to say its need, never the words
 * themselves: how directly, how much concrete detail, which decoy cue, whether to hedge, its
 * tone, whether to hold details back until asked, where the need sits and which of the bank's
 * phrasings of it to say. `renderCaChoice` turns that choice into a
 * sentence from the utterance bank with the customer's seeded facts filled in, so every backend's
 * text goes through the same bank, the same slots and the same rewards.
 *
 * A turn is one of three kinds, read from the spoken dialogue only:
 *  - opening: the first words (or a restatement when the agent said nothing audible since);
 *    [tone prefix] [hedge,] bank sentence of the chosen directness, [detail clause], [decoy cue];
 *    with placement 'context-first' the need comes last, after the detail and the decoy.
 *  - answer: the agent's last message is a question; the customer states facts (how many: below),
 *    preferring the ones the question asks about, with the same tone / hedge / decoy controls.
 *  - acknowledge: the agent has made a statement (explained a result); the customer thanks it.
 *
 * Withholding ("state details only when asked"): a withholding opening adds no detail clause;
 * the answer to the first question then gives one fact only (partial information, so the agent
 * has to ask again), after which withholding is used up and answers give max(1, detail) facts.
 */
import type { Directness, DomainTool, SlotName, UtteranceBank } from '../domain/types';
import { DOMAIN_TOOLS } from '../domain/types';
import type { Rng } from '../random';
import type { CaDirective } from '../world/adversities';
import type { CaObservation } from '../world/environment';
import { fillSlots, slotValues, slotsIn } from './slots';
import { askedKinds, DETAIL_KINDS } from '../world/asked-details';
import type { DetailKind } from '../world/asked-details';

/** The detail kinds and what asks for them live with the world, which reads them too. */
export { ASKED_PATTERNS, DETAIL_KINDS } from '../world/asked-details';
export type { DetailKind } from '../world/asked-details';

export const CA_DIRECTNESS = ['direct', 'indirect', 'vague'] as const satisfies readonly Directness[];
export const CA_TONES = ['neutral', 'frustrated', 'anxious'] as const;
export type CaTone = (typeof CA_TONES)[number];
/** Detail levels: how many of the detail kinds a detail clause states. */
export const CA_DETAIL_LEVELS = [0, 1, 2, 3] as const;
export type CaDetailLevel = (typeof CA_DETAIL_LEVELS)[number];
/** Where the need sits in an opening: stated first, or after the detail and decoy (buried in context). */
export const CA_PLACEMENTS = ['need-first', 'context-first'] as const;
export type CaPlacement = (typeof CA_PLACEMENTS)[number];
/**
 * Which of the bank's sentences of the chosen directness an opening says: null, one drawn at
 * random; k, the k-th of them in the bank's order (k mod their count). The words stay the bank's;
 * the CA chooses among its phrasings of the need, as a customer chooses how to put it.
 */
export const CA_PHRASINGS = [null, 0, 1, 2, 3] as const;
export type CaPhrasing = (typeof CA_PHRASINGS)[number];

/** How to compose one customer utterance. */
export interface CaChoice {
  /** How directly the need is stated: the style of the bank sentence the opening uses. */
  directness: Directness;
  /** How many of merchant, amount, date and channel/place the detail clause states (0–3). */
  detail: CaDetailLevel;
  /** A cue sentence from another tool's domain (RL-ADA's contextual camouflage), or none. */
  decoy: DomainTool | null;
  /** Open with a hedge / self-doubt phrase ("I might be wrong, but"). */
  hedge: boolean;
  tone: CaTone;
  /** State details only when asked (see the module comment). */
  withhold: boolean;
  /** Where the need sits in an opening (answers state facts only). Absent: need first. */
  placement?: CaPlacement;
  /** Which bank sentence of the chosen directness the opening says (`CA_PHRASINGS`). Absent: one drawn at random. */
  phrasing?: CaPhrasing;
}

/**
 * The policy's heads, in the order a network outputs them; a head's index space is its
 * `values` list. A choice's log-probability is the sum over heads: logπ(c) = Σ_h logπ_h(c_h).
 *   directness 3 (direct, indirect, vague) · detail 4 (0–3) · decoy 6 (none, then DOMAIN_TOOLS)
 *   · hedge 2 (no, yes) · tone 3 (neutral, frustrated, anxious) · withhold 2 (no, yes)
 *   · placement 2 (need first, context first) · phrasing 5 (random, then the 1st–4th sentence)
 *   = 27 logits. Placement and phrasing came last, in that order, so the heads before them keep
 *   their offsets and a snapshot saved without them loads (models/ca-model.ts).
 */
export const CA_HEADS = [
  { name: 'directness', values: CA_DIRECTNESS },
  { name: 'detail', values: CA_DETAIL_LEVELS },
  { name: 'decoy', values: [null, ...DOMAIN_TOOLS] as const },
  { name: 'hedge', values: [false, true] as const },
  { name: 'tone', values: CA_TONES },
  { name: 'withhold', values: [false, true] as const },
  { name: 'placement', values: CA_PLACEMENTS },
  { name: 'phrasing', values: CA_PHRASINGS },
] as const satisfies readonly { name: keyof CaChoice; values: readonly unknown[] }[];
export type CaHeadName = (typeof CA_HEADS)[number]['name'];
/** Sizes of the heads, in `CA_HEADS` order: [3, 4, 6, 2, 3, 2, 2, 5]. */
export const CA_HEAD_SIZES: readonly number[] = CA_HEADS.map((h) => h.values.length);
/** Where each head starts in the concatenated logits: [0, 3, 7, 13, 15, 18, 20, 22]. */
export const CA_HEAD_OFFSETS: readonly number[] = CA_HEAD_SIZES.map((_, i) => CA_HEAD_SIZES.slice(0, i).reduce((a, b) => a + b, 0));
/** Total logits over all heads (27). */
export const CA_LOGITS = CA_HEAD_SIZES.reduce((a, b) => a + b, 0);
/** Index of the decoy head in `CA_HEADS`. */
export const DECOY_HEAD = CA_HEADS.findIndex((h) => h.name === 'decoy');

/** A head's value in a choice; the heads a choice may leave out read as their first value (need first, a random sentence). */
export function caHeadValue(c: CaChoice, head: CaHeadName): unknown {
  if (head === 'placement') return c.placement ?? 'need-first';
  if (head === 'phrasing') return c.phrasing ?? null;
  return c[head];
}

/** One index per head, in `CA_HEADS` order. */
export function encodeCaChoice(c: CaChoice): number[] {
  return CA_HEADS.map((h) => {
    const i = (h.values as readonly unknown[]).indexOf(caHeadValue(c, h.name));
    if (i < 0) throw new Error(`CaChoice: ${h.name} = ${JSON.stringify(c[h.name])} is not one of ${JSON.stringify(h.values)}`);
    return i;
  });
}

/** The choice for one index per head (inverse of `encodeCaChoice`). */
export function decodeCaChoice(ix: readonly number[]): CaChoice {
  if (ix.length !== CA_HEADS.length) throw new Error(`CaChoice: need ${CA_HEADS.length} head indices, got ${ix.length}`);
  const out: Record<string, unknown> = {};
  CA_HEADS.forEach((h, k) => {
    const i = ix[k]!;
    if (!Number.isInteger(i) || i < 0 || i >= h.values.length) throw new Error(`CaChoice: ${h.name} index ${i} is outside [0, ${h.values.length})`);
    out[h.name] = h.values[i];
  });
  return out as unknown as CaChoice;
}

/** Every choice (3·4·6·2·3·2·2·5 = 8,640), for enumeration in tests and tables. */
export function allCaChoices(): CaChoice[] {
  let rows: number[][] = [[]];
  for (const size of CA_HEAD_SIZES) rows = rows.flatMap((r) => Array.from({ length: size }, (_, i) => [...r, i]));
  return rows.map(decodeCaChoice);
}

// ---------------------------------------------------------------- the dialogue, as the CA sees it

export type CaTurnKind = 'opening' | 'answer' | 'acknowledge';

/** Where the call stands, from the customer's observation only (spoken words). */
export interface CaTurnState {
  kind: CaTurnKind;
  /** Customer utterances so far (this turn's index among the customer's turns). */
  customerTurns: number;
  /** Agent messages so far. */
  agentTurns: number;
  /** The agent's latest message, or null before it has said anything. */
  lastAgent: string | null;
  /** The latest agent message asks a question. */
  lastAgentAsks: boolean;
  /** The agent has made a statement, e.g. explained a result. */
  explained: boolean;
  /** Agent questions the customer has already answered (withholding is used up after one). */
  questionsAnswered: number;
}

/** A question to answer: ends with '?', and is not the closing "anything else?". */
export function isAgentQuestion(text: string): boolean {
  const s = text.trim();
  return s.endsWith('?') && !/\banything else\b/i.test(s);
}

export function caTurnState(obs: CaObservation): CaTurnState {
  let customerTurns = 0;
  let agentTurns = 0;
  let explained = false;
  let questionsAnswered = 0;
  let lastAgent: string | null = null;
  let pendingQuestion = false;
  /** Agent speech since the customer last spoke. */
  let pending = false;
  for (const d of obs.dialogue) {
    if (d.role === 'customer') {
      customerTurns++;
      if (pendingQuestion) questionsAnswered++;
      pendingQuestion = false;
      pending = false;
    } else {
      agentTurns++;
      lastAgent = d.text;
      pending = true;
      pendingQuestion = isAgentQuestion(d.text);
      if (!pendingQuestion) explained = true;
    }
  }
  const lastAgentAsks = lastAgent !== null && isAgentQuestion(lastAgent);
  // Nothing audible from the agent since the customer spoke: say the need again.
  const kind: CaTurnKind = customerTurns === 0 || !pending ? 'opening' : pendingQuestion ? 'answer' : 'acknowledge';
  return { kind, customerTurns, agentTurns, lastAgent, lastAgentAsks, explained, questionsAnswered };
}

// ---------------------------------------------------------------- parts of an utterance

/**
 * Lower-cases a template's first letter after a hedge ("There's" → "there's", "A line" → "a
 * line"), but not "I" ("I'm"), an acronym ("ATM") or a slot.
 */
function lowerFirst(s: string): string {
  return /^[A-Z]([a-z]|\b)/.test(s) && !/^I\b/.test(s) ? s[0]!.toLowerCase() + s.slice(1) : s;
}

function squash(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** "lead text": a lead that ends a sentence starts a new one; a hedge ("…, but") runs on. */
export function joinLead(lead: string, text: string): string {
  const l = squash(lead);
  const t = squash(text);
  if (l === '') return t;
  return /[.!?]$/.test(l) ? `${l} ${t}` : `${l} ${lowerFirst(t)}`;
}

/** Sentences joined by one space; empty parts are skipped. */
export function joinSentences(parts: readonly string[]): string {
  return parts
    .map(squash)
    .filter((p) => p !== '')
    .join(' ');
}

/** The lead of an utterance: a tone prefix then a hedge. Answers skip neutral greetings. */
export function leadOf(tonePrefix: string, hedge: string): string {
  return joinSentences([tonePrefix, hedge]);
}

const utteranceCache = new WeakMap<UtteranceBank, Map<string, Record<Directness, string[]>>>();

/** The bank sentences of an intent, by style. */
function sentencesOf(bank: UtteranceBank, intent: string): Record<Directness, string[]> {
  let byIntent = utteranceCache.get(bank);
  if (!byIntent) {
    byIntent = new Map();
    for (const u of bank.utterances) {
      let row = byIntent.get(u.intent);
      if (!row) byIntent.set(u.intent, (row = { direct: [], indirect: [], vague: [] }));
      row[u.style].push(u.text);
    }
    utteranceCache.set(bank, byIntent);
  }
  const row = byIntent.get(intent);
  if (!row) throw new Error(`renderCaChoice: no utterances for intent "${intent}" in the bank`);
  return row;
}

/** Bank sentences an opening of this directness draws from (the nearest style when the bank has none). */
export function openingSentences(bank: UtteranceBank, intent: string, directness: Directness): string[] {
  const row = sentencesOf(bank, intent);
  if (row[directness].length > 0) return row[directness];
  const style = (['indirect', 'direct', 'vague'] as const).find((s) => row[s].length > 0);
  if (!style) throw new Error(`renderCaChoice: no utterances for intent "${intent}" in the bank`);
  return row[style];
}

/** Tone prefixes an opening draws from ('' is a plain start). */
export function openingTonePrefixes(bank: UtteranceBank, tone: CaTone): string[] {
  const list = bank.tones[tone];
  return list.length > 0 ? list : [''];
}

/** Tone prefixes an answer draws from: none for a neutral tone (no greeting mid-call). */
export function answerTonePrefixes(bank: UtteranceBank, tone: CaTone): string[] {
  return tone === 'neutral' ? [''] : openingTonePrefixes(bank, tone);
}

/** Hedge phrases for the hedge head's value. */
export function hedgePhrases(bank: UtteranceBank, hedge: boolean): string[] {
  return hedge && bank.hedges.length > 0 ? bank.hedges : [''];
}

/** Decoy cue sentences for the decoy head's value. */
export function decoySentences(bank: UtteranceBank, decoy: DomainTool | null): string[] {
  if (decoy === null) return [''];
  const list = bank.decoys[decoy];
  return list.length > 0 ? list : [''];
}

export const KIND_SLOTS: Record<DetailKind, readonly string[]> = { merchant: ['merchant'], amount: ['amount'], date: ['date'], where: ['channel', 'place'] };

/** The detail kinds a template states. */
export function detailKindsOf(template: string): DetailKind[] {
  const slots = new Set(slotsIn(template));
  return DETAIL_KINDS.filter((k) => KIND_SLOTS[k].some((s) => slots.has(s)));
}

/** All subsets of `DETAIL_KINDS` of size k, each in canonical order. */
export function detailKindSubsets(k: number): DetailKind[][] {
  const out: DetailKind[][] = [];
  const rec = (from: number, acc: DetailKind[]) => {
    if (acc.length === k) {
      out.push(acc);
      return;
    }
    for (let i = from; i < DETAIL_KINDS.length; i++) rec(i + 1, [...acc, DETAIL_KINDS[i]!]);
  };
  rec(0, []);
  return out;
}

// A detail clause names the payment with exactly the chosen facts: "It was the $42.50 online
// payment at Shell yesterday." The bank's detailReplies fix their facts together, so they serve
// wherever their facts are exactly the chosen ones; these frames cover every other combination.
export const DETAIL_LEADS = ["It's", 'It was', 'I mean', "I'm talking about"];
export const DETAIL_NOUNS = ['payment', 'one'];
export const MERCHANT_PREPS = ['to', 'at', 'from'];

const detailCache = new WeakMap<UtteranceBank, Map<string, string[]>>();

/** Detail templates that state exactly these kinds (non-empty), from the bank and the frames above. */
export function detailTemplates(bank: UtteranceBank, kinds: readonly DetailKind[]): string[] {
  const want = DETAIL_KINDS.filter((k) => kinds.includes(k));
  const key = want.join(',');
  let byKinds = detailCache.get(bank);
  if (!byKinds) detailCache.set(bank, (byKinds = new Map()));
  const hit = byKinds.get(key);
  if (hit) return hit;
  const has = (k: DetailKind) => want.includes(k);
  const out = new Set(bank.detailReplies.filter((t) => detailKindsOf(t).join(',') === key));
  for (const lead of DETAIL_LEADS) {
    for (const noun of DETAIL_NOUNS) {
      for (const prep of has('merchant') ? MERCHANT_PREPS : ['']) {
        for (const where of has('where') ? (['channel', 'place'] as const) : ([null] as const)) {
          const np = [
            'the',
            has('amount') ? '{amount}' : '',
            where === 'channel' ? '{channel}' : '',
            noun,
            prep ? `${prep} {merchant}` : '',
            has('date') ? '{date}' : '',
            where === 'place' ? 'in {place}' : '',
          ].filter(Boolean);
          out.add(`${lead} ${np.join(' ')}.`);
        }
      }
    }
  }
  const list = [...out];
  byKinds.set(key, list);
  return list;
}

/** Detail templates an opening of this level can use: '' for none, else any clause with `level` facts. */
export function openingDetailTemplates(bank: UtteranceBank, level: CaDetailLevel, withhold: boolean): string[] {
  if (withhold || level === 0) return [''];
  return [...new Set(detailKindSubsets(level).flatMap((ks) => detailTemplates(bank, ks)))];
}

/** How many facts an answer states (see the module comment on withholding). */
export function answerFactCount(choice: CaChoice, s: CaTurnState): number {
  if (choice.withhold && s.questionsAnswered === 0) return 1;
  return Math.max(1, choice.detail);
}

// ---------------------------------------------------------------- rendering

function shuffled<T>(xs: readonly T[], rng: Rng): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/** An opening as a template: each part drawn from its list by `rng`. */
export function openingTemplate(choice: CaChoice, intent: string, bank: UtteranceBank, rng: Rng, withheld?: DetailKind): string {
  const sentences = openingSentences(bank, intent, choice.directness);
  const k = choice.phrasing ?? null;
  const body = k === null ? rng.pick(sentences) : sentences[k % sentences.length]!;
  const lead = leadOf(rng.pick(openingTonePrefixes(bank, choice.tone)), rng.pick(hedgePhrases(bank, choice.hedge)));
  let detail = '';
  const subsets = detailKindSubsets(choice.detail).filter((ks) => withheld === undefined || !ks.includes(withheld));
  if (!choice.withhold && choice.detail > 0) detail = rng.pick(detailTemplates(bank, rng.pick(subsets)));
  const decoy = rng.pick(decoySentences(bank, choice.decoy));
  const parts = choice.placement === 'context-first' ? [detail, decoy, body].filter((p) => p !== '') : [body, detail, decoy];
  return joinSentences([joinLead(lead, parts[0]!), ...parts.slice(1)]);
}

/** An answer to the agent's question as a template: facts it asked about first. */
export function answerTemplate(choice: CaChoice, s: CaTurnState, bank: UtteranceBank, rng: Rng, withheld?: DetailKind): string {
  const n = answerFactCount(choice, s);
  const asked = askedKinds(s.lastAgent ?? '');
  const others = DETAIL_KINDS.filter((k) => !asked.includes(k) && k !== withheld);
  const kinds = [...shuffled(asked, rng), ...shuffled(others, rng)].slice(0, n);
  const detail = rng.pick(detailTemplates(bank, kinds));
  const lead = leadOf(rng.pick(answerTonePrefixes(bank, choice.tone)), rng.pick(hedgePhrases(bank, choice.hedge)));
  const decoy = rng.pick(decoySentences(bank, choice.decoy));
  return joinSentences([joinLead(lead, detail), decoy]);
}

/**
 * Bounds on a learned CA's tactics (EAU knobs `ca.tactics.*`, RunConfig `ca.tactics`): applied
 * to a sampled choice before it becomes words. Each share is the chance a sampled tactic is kept
 * (1: always, no bound); `detailDensity` caps the detail level.
 */
export interface CaTacticBounds {
  detailDensity?: number;
  decoyRate?: number;
  directness?: number;
  withholding?: number;
}

/**
 * The choice within the bounds. Draws from `rng` only where a bound below 1 meets the tactic it
 * bounds, so a CA without bounds says exactly what it said before.
 */
export function boundCaChoice(choice: CaChoice, bounds: CaTacticBounds | undefined, rng: Rng): CaChoice {
  if (!bounds) return choice;
  const out = { ...choice };
  const keep = (share: number | undefined) => share === undefined || share >= 1 || rng.next() < share;
  if (bounds.detailDensity !== undefined && out.detail > bounds.detailDensity) out.detail = bounds.detailDensity as CaDetailLevel;
  if (out.decoy !== null && !keep(bounds.decoyRate)) out.decoy = null;
  if (out.directness !== 'direct' && !keep(bounds.directness)) out.directness = 'direct';
  if (out.withhold && !keep(bounds.withholding)) out.withhold = false;
  return out;
}

/**
 * The customer's words for `choice` at this point of the call, with the customer's seeded facts
 * in the slots. Every random pick (which sentence, prefix, hedge, facts, cue) comes from `rng`.
 */
export function renderCaChoice(choice: CaChoice, obs: CaObservation, bank: UtteranceBank, rng: Rng): string {
  const s = caTurnState(obs);
  const d = obs.adversity;
  if (d) return renderWithAdversity(choice, obs, s, d, bank, rng);
  let template: string;
  if (s.kind === 'opening') template = openingTemplate(choice, obs.intent, bank, rng);
  else if (s.kind === 'answer') template = answerTemplate(choice, s, bank, rng);
  else template = rng.pick(bank.acknowledgements);
  return squash(fillSlots(template, slotValues(obs.facts, obs.name)));
}

/** What a customer says instead of a withheld detail (partial information). */
export const VAGUE: Record<DetailKind, Partial<Record<SlotName, string>>> = {
  merchant: { merchant: 'some company' },
  amount: { amount: 'some money' },
  date: { date: 'recently' },
  where: { channel: 'somehow', place: 'somewhere' },
};

/** What a customer says when a goal revision drops the earlier request. */
export const REVISE_LINE = "Actually, forget that, it's not why I'm calling.";

/** The words for `choice` under the scenario's conversational adversities (see `adversities.ts`). */
function renderWithAdversity(choice: CaChoice, obs: CaObservation, s: CaTurnState, d: CaDirective, bank: UtteranceBank, rng: Rng): string {
  let template: string;
  if (d.revise) template = joinSentences([REVISE_LINE, openingTemplate(choice, obs.intent, bank, rng, d.withhold)]);
  else if (s.kind === 'opening') template = openingTemplate(choice, obs.intent, bank, rng, d.withhold);
  else if (s.kind === 'answer') template = answerTemplate(choice, s, bank, rng, d.withhold);
  else template = rng.pick(bank.acknowledgements);
  template = joinSentences([d.hostile ?? '', template, d.reveal ?? '']);
  const values = { ...slotValues(obs.facts, obs.name), ...(d.withhold ? VAGUE[d.withhold] : {}) };
  return squash(fillSlots(template, values));
}
