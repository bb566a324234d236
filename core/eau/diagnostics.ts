/**
 * EAU's diagnoses (seed 002) on a Sparring run: pure functions over a match's episodes (and the
 * run's earlier matches) and over a gym's step statistics, each returning the knob writes it
 * proposes (`KnobProposal`, core/eau/proposal.ts) with the evidence a person needs to judge them.
 * Nothing here applies a write: the run records the proposals, a person accepts or dismisses them.
 *
 * The five diagnoses and their documented thresholds (DEFAULT_THRESHOLDS):
 *
 * - **deadlock** (EAU: a counter that deadlocked 41% of episodes): an episode that hits the DA's
 *   turn limit without a domain tool call never routed at all. Fires when more than `rate` (0.2)
 *   of a match's episodes do; proposes raising `arena.maxDaTurns` by half (at least +2, at most 50).
 * - **reward hacking**: over the last `window` (3) matches, the least-squares change of the mean
 *   reward rises while the task success (routing: the first domain tool is the expected one) or
 *   the judge's mean J falls, each by more than `z` (2) standard errors of a difference of two
 *   match means. Checked for the DA (r_DA vs routing / J) and the CA (r_CA vs its misroute rate).
 *   Proposes halving the weight of the reward term whose mean rose most over the window
 *   (`daReward.<key>` / `caReward.<key>`; only terms with a positive weight).
 * - **template collapse**: corpus distinct-n (distinct n-grams / n-grams; Li et al. 2016) of the
 *   CA's openings or the DA's speeches (30 of them, evenly spaced through the match, so that
 *   matches of any size compare), n = 2 and 3, falls below `floor` (0.15) or to
 *   (1 − `drop`) (0.6) of the run's first match. Proposes doubling the collapsing role's KL weight
 *   β toward its reference (`gym.ca.klBeta` / `gym.da.klBeta`, at least 0.01): the knob that
 *   holds a policy near the more varied one it started from.
 * - **leakage** (EAU: a simulator that leaks what the agent should elicit): a customer turn names
 *   the intent outright (one of the taxonomy's `reveals` phrases, or the intent's label with
 *   spaces). Fires above `rate` (0.1) of the episodes. When the symbolic arm leaks more than the
 *   learned one, proposes halving `customer.symbolicMix`; otherwise doubling the CA's concealment
 *   penalty `caReward.concealPenalty`.
 * - **degenerate gym**: GRPO groups whose K rewards are all equal carry no advantage (they are
 *   skipped). Fires when more than `share` (0.5) of a gym's groups were; proposes doubling K
 *   (`gym.<role>.K`, up to 64), or, at K ≥ 32, moving `gym.failureShare` to 0.5.
 */
import type { TaxonomyEntry } from '../domain/types';
import type { RunConfig } from '../coevolution/run-config';
import type { SparringConfig } from '../config';
import { revealsIntent } from '../rewards/ca-reward';
import { CA_TERMS, DA_TERMS } from '../rewards/terms';
import type { CaTerm, DaTerm } from '../rewards/terms';
import type { EpisodeRecord, TurnRecord } from '../store/port';
import { parseDaOutput } from '../wire';
import type { CustomerArm } from './customer-mix';
import type { Evidence, EvidenceSeries, KnobProposal } from './proposal';

export interface DiagnosticThresholds {
  deadlock: { rate: number };
  rewardHacking: { window: number; z: number };
  templateCollapse: { floor: number; drop: number; minTexts: number };
  leakage: { rate: number };
  degenerateGym: { share: number };
}

/** The documented defaults (see the header). */
export const DEFAULT_THRESHOLDS: DiagnosticThresholds = {
  deadlock: { rate: 0.2 },
  rewardHacking: { window: 3, z: 2 },
  templateCollapse: { floor: 0.15, drop: 0.4, minTexts: 10 },
  leakage: { rate: 0.1 },
  degenerateGym: { share: 0.5 },
};

/** At most this many episode ids in a proposal's evidence. */
const MAX_EVIDENCE_EPISODES = 20;

/** What the diagnostics read of an episode (a stored EpisodeRecord has it all). */
export type DiagnosticEpisode = Pick<
  EpisodeRecord,
  'id' | 'intent' | 'expectedTool' | 'routedTool' | 'endReason' | 'fraudReference' | 'rDa' | 'rCa' | 'daTerms' | 'caTerms' | 'customer'
> & { judge: Pick<EpisodeRecord['judge'], 'score'>; turns: readonly Pick<TurnRecord, 'role' | 'text' | 'actionType'>[] };

/** Corpus distinct-n of a set of texts: distinct n-grams over all n-grams (lower-cased word tokens); null when none. */
export function distinctN(texts: readonly string[], n: number): number | null {
  const seen = new Set<string>();
  let total = 0;
  for (const t of texts) {
    const w = t.toLowerCase().match(/[a-z0-9$'’]+/g) ?? [];
    for (let i = 0; i + n <= w.length; i++) {
      seen.add(w.slice(i, i + n).join(' '));
      total++;
    }
  }
  return total ? seen.size / total : null;
}

interface Diversity {
  texts: number;
  distinct2: number | null;
  distinct3: number | null;
}

/**
 * Texts a diversity figure is computed on: distinct-n falls as a corpus grows (common n-grams
 * repeat), so every match is measured on the same number of texts, evenly spaced through the
 * match (episodes are in scenario order), whatever the preset's match size.
 */
export const DIVERSITY_SAMPLE = 30;

function diversity(all: readonly string[]): Diversity {
  const texts =
    all.length <= DIVERSITY_SAMPLE ? all : Array.from({ length: DIVERSITY_SAMPLE }, (_, i) => all[Math.floor((i * all.length) / DIVERSITY_SAMPLE)]!);
  return { texts: texts.length, distinct2: distinctN(texts, 2), distinct3: distinctN(texts, 3) };
}

/** One match's figures the diagnostics compare across matches. */
export interface MatchDigest {
  matchIndex: number;
  episodes: number;
  /** Mean and standard deviation of r_DA, r_CA and the judge's J over the match's episodes. */
  rDa: { mean: number; sd: number };
  rCa: { mean: number; sd: number };
  judge: { mean: number; sd: number };
  /** Routing success: the first domain tool is the expected one (non-fraud episodes). */
  routing: { rate: number; n: number };
  /** Mean of each reward term per episode. */
  daTerms: Record<DaTerm, number>;
  caTerms: Record<CaTerm, number>;
  caOpenings: Diversity;
  daSpeeches: Diversity;
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
function meanSd(xs: readonly number[]): { mean: number; sd: number } {
  const m = mean(xs);
  return { mean: m, sd: xs.length > 1 ? Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1)) : 0 };
}

/** The DA's speeches of an episode (speak and end_call messages), parsed from the stored raw outputs. */
function daSpeeches(e: DiagnosticEpisode): string[] {
  return e.turns.flatMap((t) => {
    if (t.role !== 'agent' || (t.actionType !== 'speak' && t.actionType !== 'end_call')) return [];
    const p = parseDaOutput(t.text);
    return p.ok && p.action.content.trim() ? [p.action.content] : [];
  });
}

export function digestMatch(matchIndex: number, episodes: readonly DiagnosticEpisode[]): MatchDigest {
  const winnable = episodes.filter((e) => !e.fraudReference);
  return {
    matchIndex,
    episodes: episodes.length,
    rDa: meanSd(episodes.map((e) => e.rDa)),
    rCa: meanSd(episodes.map((e) => e.rCa)),
    judge: meanSd(episodes.map((e) => e.judge.score)),
    routing: { rate: mean(winnable.map((e) => (e.routedTool === e.expectedTool ? 1 : 0))), n: winnable.length },
    daTerms: Object.fromEntries(DA_TERMS.map((t) => [t, mean(episodes.map((e) => e.daTerms[t]))])) as Record<DaTerm, number>,
    caTerms: Object.fromEntries(CA_TERMS.map((t) => [t, mean(episodes.map((e) => e.caTerms[t]))])) as Record<CaTerm, number>,
    caOpenings: diversity(episodes.flatMap((e) => e.turns.find((t) => t.role === 'customer')?.text ?? [])),
    daSpeeches: diversity(episodes.flatMap(daSpeeches)),
  };
}

// ------------------------------------------------------------------------ knob values

/** The current value of every knob a diagnostic may propose to write (knob id → number). */
export type KnobValues = Readonly<Record<string, number>>;

/** The knob values a run config implies (ids as in core/eau/proposal.ts). */
export function knobValues(config: RunConfig, sparring: SparringConfig): KnobValues {
  const v: Record<string, number> = {
    'arena.maxDaTurns': sparring.arena.maxDaTurns,
    'customer.symbolicMix': config.customer?.symbolicMix ?? 0,
    'gym.failureShare': config.gym.failureShare,
  };
  for (const role of ['da', 'ca'] as const) {
    for (const k of ['K', 'klBeta', 'lr', 'clipEps'] as const) v[`gym.${role}.${k}`] = config.gym[role][k];
  }
  for (const [k, x] of Object.entries(sparring.daReward)) v[`daReward.${k}`] = x;
  for (const [k, x] of Object.entries(sparring.caReward)) v[`caReward.${k}`] = x;
  return v;
}

function current(knobs: KnobValues, knob: string): number {
  const v = knobs[knob];
  if (v === undefined) throw new Error(`diagnostics: no current value for knob '${knob}'`);
  return v;
}

const round = (x: number, digits = 4) => Number(x.toFixed(digits));

// --------------------------------------------------------------------------- deadlock

/** An episode that hit the turn limit without a domain tool call: it never routed. */
export function isDeadlocked(e: Pick<DiagnosticEpisode, 'endReason' | 'routedTool'>): boolean {
  return e.endReason === 'turn_limit' && e.routedTool === null;
}

export function diagnoseDeadlock(
  matchIndex: number,
  episodes: readonly DiagnosticEpisode[],
  knobs: KnobValues,
  history: readonly { matchIndex: number; deadlockRate: number }[] = [],
  t: DiagnosticThresholds['deadlock'] = DEFAULT_THRESHOLDS.deadlock,
): KnobProposal[] {
  if (episodes.length === 0) return [];
  const stuck = episodes.filter(isDeadlocked);
  const rate = stuck.length / episodes.length;
  if (rate <= t.rate) return [];
  const turns = current(knobs, 'arena.maxDaTurns');
  const value = Math.min(50, Math.max(turns + 2, Math.ceil(turns * 1.5)));
  if (value <= turns) return [];
  return [
    {
      knob: 'arena.maxDaTurns',
      value,
      reason: `${pct(rate)} of match ${matchIndex}'s episodes (${stuck.length}/${episodes.length}) hit the turn limit of ${turns} DA turns without a domain tool call (threshold ${pct(t.rate)}); raise the limit to ${value}`,
      source: { kind: 'diagnostic', name: 'deadlock' },
      evidence: {
        episodes: stuck.slice(0, MAX_EVIDENCE_EPISODES).map((e) => e.id),
        series: [{ name: 'deadlock rate', points: [...history.map((h): [number, number] => [h.matchIndex, h.deadlockRate]), [matchIndex, round(rate)]] }],
        figures: { deadlockRate: round(rate), deadlocked: stuck.length, episodes: episodes.length, maxDaTurns: turns, threshold: t.rate },
      },
      at: { matchIndex },
    },
  ];
}

// --------------------------------------------------------------------- reward hacking

/** The config weight that pays each reward term (the one a proposal halves); null: none to lower. */
const DA_TERM_WEIGHT: Record<DaTerm, string | null> = {
  format: 'formatValid',
  tool: 'toolCorrect',
  env_lookup_first: 'lookupFirst',
  env_correct_tool: 'correctToolVerified',
  env_speak: null,
  env_milestone: 'milestoneCap',
  env_late: null,
  env_judge: 'judgeClip',
  env_missed_verification: null,
  env_missing_tool: null,
  end: 'endAfterSequence',
  env_fallback: 'fallbackCredit',
};
const CA_TERM_WEIGHT: Record<CaTerm, string | null> = { format: 'formatNatural', realism: 'realismScale', conceal: null, inv_da: 'invDaMisroute' };

/** Least-squares slope of y on x. */
export function slope(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = mean(points.map((p) => p[0]));
  const my = mean(points.map((p) => p[1]));
  const sxx = points.reduce((s, p) => s + (p[0] - mx) ** 2, 0);
  return sxx === 0 ? 0 : points.reduce((s, p) => s + (p[0] - mx) * (p[1] - my), 0) / sxx;
}

/** The fitted change over a window (slope × span), and the noise it must exceed: z standard errors of a difference of two match means. */
function trend(points: readonly [number, number][], se: number, z: number) {
  const change = slope(points) * (points.at(-1)![0] - points[0]![0]);
  return { change, noise: z * Math.SQRT2 * se };
}

export function diagnoseRewardHacking(
  digests: readonly MatchDigest[],
  knobs: KnobValues,
  t: DiagnosticThresholds['rewardHacking'] = DEFAULT_THRESHOLDS.rewardHacking,
): KnobProposal[] {
  if (digests.length < t.window) return [];
  const w = digests.slice(-t.window);
  const last = w.at(-1)!;
  const out: KnobProposal[] = [];
  const seMean = (f: (d: MatchDigest) => { sd: number }) => mean(w.map((d) => f(d).sd / Math.sqrt(Math.max(1, d.episodes))));
  const seRate = mean(
    w.map((d) => {
      const p = Math.min(Math.max(d.routing.rate, 0.5 / Math.max(1, d.routing.n)), 1 - 0.5 / Math.max(1, d.routing.n));
      return Math.sqrt((p * (1 - p)) / Math.max(1, d.routing.n));
    }),
  );
  const series = (name: string, f: (d: MatchDigest) => number): EvidenceSeries => ({ name, points: w.map((d) => [d.matchIndex, round(f(d))]) });
  const pts = (f: (d: MatchDigest) => number) => w.map((d): [number, number] => [d.matchIndex, f(d)]);
  const routing = trend(
    pts((d) => d.routing.rate),
    seRate,
    t.z,
  );
  const judge = trend(
    pts((d) => d.judge.mean),
    seMean((d) => d.judge),
    t.z,
  );

  const check = <T extends string>(
    role: 'DA' | 'CA',
    reward: ReturnType<typeof trend>,
    falls: { name: string; change: number; noise: number }[],
    terms: (d: MatchDigest) => Record<T, number>,
    weights: Record<T, string | null>,
    section: 'daReward' | 'caReward',
  ) => {
    if (!(reward.change > reward.noise)) return;
    const fell = falls.filter((f) => f.change < -f.noise);
    if (fell.length === 0) return;
    // The term whose mean rose most over the window, among those a positive weight pays.
    const rises = (Object.keys(weights) as T[])
      .map((term) => ({
        term,
        key: weights[term],
        change: trend(
          pts((d) => terms(d)[term]),
          0,
          0,
        ).change,
      }))
      .filter((r): r is { term: T; key: string; change: number } => r.key !== null && r.change > 0 && current(knobs, `${section}.${r.key}`) > 0)
      .sort((a, b) => b.change - a.change);
    const top = rises[0];
    if (!top) return;
    const knob = `${section}.${top.key}`;
    const from = current(knobs, knob);
    const figures: Record<string, number> = {
      rewardChange: round(reward.change),
      rewardNoise: round(reward.noise),
      [`term_${top.term}_change`]: round(top.change),
      window: t.window,
      z: t.z,
    };
    for (const f of fell) Object.assign(figures, { [`${f.name}Change`]: round(f.change), [`${f.name}Noise`]: round(f.noise) });
    out.push({
      knob,
      value: round(from / 2, 6),
      reason: `r_${role} rose by ${reward.change.toFixed(3)} over matches ${w[0]!.matchIndex}–${last.matchIndex} while ${fell.map((f) => `${f.name} fell by ${f.change.toFixed(3)}`).join(' and ')} (beyond ${t.z} SE); the term '${top.term}' rose most (+${top.change.toFixed(3)}): halve its weight ${section}.${top.key} from ${from}`,
      source: { kind: 'diagnostic', name: 'reward-hacking' },
      evidence: {
        episodes: [],
        series: [
          series(`mean r_${role}`, (d) => (role === 'DA' ? d.rDa.mean : d.rCa.mean)),
          series('routing success', (d) => d.routing.rate),
          series('mean judge J', (d) => d.judge.mean),
          series(`mean ${top.term} (${role})`, (d) => terms(d)[top.term]),
        ],
        figures,
      },
      at: { matchIndex: last.matchIndex },
    });
  };
  check(
    'DA',
    trend(
      pts((d) => d.rDa.mean),
      seMean((d) => d.rDa),
      t.z,
    ),
    [
      { name: 'routing', ...routing },
      { name: 'judgeJ', ...judge },
    ],
    (d) => d.daTerms,
    DA_TERM_WEIGHT,
    'daReward',
  );
  // The CA succeeds when the DA misroutes: its success falls when routing rises.
  check(
    'CA',
    trend(
      pts((d) => d.rCa.mean),
      seMean((d) => d.rCa),
      t.z,
    ),
    [{ name: 'caSuccess', change: -routing.change, noise: routing.noise }],
    (d) => d.caTerms,
    CA_TERM_WEIGHT,
    'caReward',
  );
  return out;
}

// ------------------------------------------------------------------ template collapse

export function diagnoseTemplateCollapse(
  digests: readonly MatchDigest[],
  knobs: KnobValues,
  t: DiagnosticThresholds['templateCollapse'] = DEFAULT_THRESHOLDS.templateCollapse,
): KnobProposal[] {
  const first = digests[0];
  const last = digests.at(-1);
  if (!first || !last) return [];
  const out: KnobProposal[] = [];
  for (const [what, role, pick] of [
    ["the CA's openings", 'ca', (d: MatchDigest) => d.caOpenings],
    ["the DA's speeches", 'da', (d: MatchDigest) => d.daSpeeches],
  ] as const) {
    const now = pick(last);
    if (now.texts < t.minTexts) continue;
    const hits: string[] = [];
    const figures: Record<string, number> = { texts: now.texts, floor: t.floor, drop: t.drop };
    for (const n of [2, 3] as const) {
      const v = n === 2 ? now.distinct2 : now.distinct3;
      const v0 = n === 2 ? pick(first).distinct2 : pick(first).distinct3;
      if (v === null) continue;
      figures[`distinct${n}`] = round(v);
      if (v0 !== null) figures[`distinct${n}First`] = round(v0);
      if (v < t.floor) hits.push(`distinct-${n} ${v.toFixed(3)} < floor ${t.floor}`);
      else if (v0 !== null && last !== first && v <= (1 - t.drop) * v0)
        hits.push(`distinct-${n} ${v.toFixed(3)} ≤ ${(1 - t.drop).toFixed(2)} × match ${first.matchIndex}'s ${v0.toFixed(3)}`);
    }
    if (hits.length === 0) continue;
    const knob = `gym.${role}.klBeta`;
    const from = current(knobs, knob);
    const value = round(Math.max(0.01, from * 2), 6);
    out.push({
      knob,
      value,
      reason: `template collapse in ${what} at match ${last.matchIndex}: ${hits.join('; ')}; raise β toward the reference from ${from} to ${value}`,
      source: { kind: 'diagnostic', name: 'template-collapse' },
      evidence: {
        episodes: [],
        series: [2, 3].map((n) => ({
          name: `distinct-${n} of ${what}`,
          points: digests.flatMap((d): [number, number][] => {
            const v = n === 2 ? pick(d).distinct2 : pick(d).distinct3;
            return v === null ? [] : [[d.matchIndex, round(v)]];
          }),
        })),
        figures,
      },
      at: { matchIndex: last.matchIndex },
    });
  }
  return out;
}

// --------------------------------------------------------------------------- leakage

/** The phrases that state an intent verbatim: its `reveals` and its label with spaces (`card_arrival` → "card arrival"). */
function leakPhrases(entry: Pick<TaxonomyEntry, 'intent' | 'reveals'> | undefined, intent: string): string[] {
  return [...(entry?.reveals ?? []), intent.replace(/_/g, ' ')];
}

/** Does any customer turn of the episode state its intent verbatim? */
export function leaksIntent(e: Pick<DiagnosticEpisode, 'intent' | 'turns'>, taxonomy: readonly Pick<TaxonomyEntry, 'intent' | 'reveals'>[]): boolean {
  const phrases = leakPhrases(
    taxonomy.find((x) => x.intent === e.intent),
    e.intent,
  );
  return e.turns.some((t) => t.role === 'customer' && revealsIntent(t.text, phrases));
}

export function diagnoseLeakage(
  matchIndex: number,
  episodes: readonly DiagnosticEpisode[],
  taxonomy: readonly Pick<TaxonomyEntry, 'intent' | 'reveals'>[],
  knobs: KnobValues,
  t: DiagnosticThresholds['leakage'] = DEFAULT_THRESHOLDS.leakage,
): KnobProposal[] {
  if (episodes.length === 0) return [];
  const leaking = episodes.filter((e) => leaksIntent(e, taxonomy));
  const rate = leaking.length / episodes.length;
  if (rate <= t.rate) return [];
  const armRate = (arm: CustomerArm) => {
    const mine = episodes.filter((e) => (e.customer ?? 'learned') === arm);
    return { n: mine.length, rate: mine.length ? mine.filter((e) => leaking.includes(e)).length / mine.length : 0 };
  };
  const sym = armRate('symbolic');
  const lrn = armRate('learned');
  const mix = current(knobs, 'customer.symbolicMix');
  const figures = {
    leakRate: round(rate),
    leaking: leaking.length,
    episodes: episodes.length,
    threshold: t.rate,
    symbolicLeakRate: round(sym.rate),
    symbolicEpisodes: sym.n,
    learnedLeakRate: round(lrn.rate),
    learnedEpisodes: lrn.n,
    symbolicMix: mix,
  };
  const evidence: Evidence = { episodes: leaking.slice(0, MAX_EVIDENCE_EPISODES).map((e) => e.id), series: [], figures };
  const head = `${pct(rate)} of match ${matchIndex}'s episodes (${leaking.length}/${episodes.length}) have the customer state the intent verbatim (threshold ${pct(t.rate)})`;
  if (mix > 0 && sym.n > 0 && sym.rate > lrn.rate) {
    const value = round(mix / 2, 3);
    return [
      {
        knob: 'customer.symbolicMix',
        value,
        reason: `${head}; the symbolic customer leaks more (${pct(sym.rate)} of ${sym.n}) than the learned CA (${pct(lrn.rate)} of ${lrn.n}): halve ε from ${mix} to ${value}`,
        source: { kind: 'diagnostic', name: 'leakage' },
        evidence,
        at: { matchIndex },
      },
    ];
  }
  const from = current(knobs, 'caReward.concealPenalty');
  const value = round(from === 0 ? -0.5 : from * 2, 6);
  return [
    {
      knob: 'caReward.concealPenalty',
      value,
      reason: `${head}: double the CA's concealment penalty from ${from} to ${value}`,
      source: { kind: 'diagnostic', name: 'leakage' },
      evidence,
      at: { matchIndex },
    },
  ];
}

// --------------------------------------------------------------------- degenerate gym

export interface GymDigest {
  gymId: string;
  role: 'DA' | 'CA';
  /** GRPO groups per step (the decision points a step scores). */
  groupsPerStep: number;
  /** Zero-variance (skipped) groups of each step, in step order (the gym/skipped_groups metric). */
  skippedGroups: readonly number[];
  /** Mean reward of each step (gym/reward_mean), for the evidence. */
  rewardMean?: readonly number[];
}

export function diagnoseDegenerateGym(
  g: GymDigest,
  knobs: KnobValues,
  t: DiagnosticThresholds['degenerateGym'] = DEFAULT_THRESHOLDS.degenerateGym,
): KnobProposal[] {
  const steps = g.skippedGroups.length;
  if (steps === 0 || g.groupsPerStep <= 0) return [];
  const skipped = g.skippedGroups.reduce((s, x) => s + x, 0);
  const share = skipped / (steps * g.groupsPerStep);
  if (share <= t.share) return [];
  const role = g.role === 'DA' ? 'da' : 'ca';
  const K = current(knobs, `gym.${role}.K`);
  const series: EvidenceSeries[] = [
    { name: 'zero-variance share of groups', points: g.skippedGroups.map((x, i): [number, number] => [i, round(x / g.groupsPerStep)]) },
  ];
  if (g.rewardMean) series.push({ name: 'gym/reward_mean', points: g.rewardMean.map((x, i): [number, number] => [i, round(x)]) });
  const evidence: Evidence = {
    episodes: [],
    series,
    figures: { zeroVarianceShare: round(share), skippedGroups: skipped, groups: steps * g.groupsPerStep, steps, K, threshold: t.share },
  };
  const head = `${pct(share)} of ${g.role} gym ${g.gymId}'s GRPO groups (${skipped}/${steps * g.groupsPerStep}) had zero reward variance (threshold ${pct(t.share)})`;
  if (K < 32) {
    const value = Math.min(64, K * 2);
    return [
      {
        knob: `gym.${role}.K`,
        value,
        reason: `${head}: sample more actions per decision point, K ${K} → ${value}`,
        source: { kind: 'diagnostic', name: 'degenerate-gym' },
        evidence,
        at: { gymId: g.gymId },
      },
    ];
  }
  const fs = current(knobs, 'gym.failureShare');
  if (fs === 0.5) return [];
  return [
    {
      knob: 'gym.failureShare',
      value: 0.5,
      reason: `${head} at K ${K}: balance failures and successes in the gym data, failureShare ${fs} → 0.5`,
      source: { kind: 'diagnostic', name: 'degenerate-gym' },
      evidence,
      at: { gymId: g.gymId },
    },
  ];
}

// ---------------------------------------------------------------------------- a match

export interface MatchDiagnosticsInput {
  matchIndex: number;
  episodes: readonly DiagnosticEpisode[];
  /** The digests of the run's earlier matches, oldest first (this match's is computed here). */
  earlier: readonly MatchDigest[];
  /** The run's deadlock rates of earlier matches, for the evidence series. */
  earlierDeadlock?: readonly { matchIndex: number; deadlockRate: number }[];
  taxonomy: readonly Pick<TaxonomyEntry, 'intent' | 'reveals'>[];
  knobs: KnobValues;
  thresholds?: Partial<DiagnosticThresholds>;
}

/** Every match diagnostic on one match (and the run's earlier ones): the proposals, and this match's digest. */
export function diagnoseMatch(a: MatchDiagnosticsInput): { proposals: KnobProposal[]; digest: MatchDigest } {
  const t = { ...DEFAULT_THRESHOLDS, ...a.thresholds };
  const digest = digestMatch(a.matchIndex, a.episodes);
  const digests = [...a.earlier, digest];
  return {
    digest,
    proposals: [
      ...diagnoseDeadlock(a.matchIndex, a.episodes, a.knobs, a.earlierDeadlock ?? [], t.deadlock),
      ...diagnoseRewardHacking(digests, a.knobs, t.rewardHacking),
      ...diagnoseTemplateCollapse(digests, a.knobs, t.templateCollapse),
      ...diagnoseLeakage(a.matchIndex, a.episodes, a.taxonomy, a.knobs, t.leakage),
    ],
  };
}

/** The deadlock rate of a match's episodes (for the series of later proposals). */
export function deadlockRate(episodes: readonly Pick<DiagnosticEpisode, 'endReason' | 'routedTool'>[]): number {
  return episodes.length ? episodes.filter(isDeadlocked).length / episodes.length : 0;
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}
