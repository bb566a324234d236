/**
 * The tables of a study (seeds × arms): per arm, each measure of its runs as a mean with the 95%
 * Student-t interval over seeds; per pair of arms, the paired difference on the seeds both ran.
 * The measures follow RL-ADA §5 (Table 4 held-out routing, strict PASS, FAIL, mean reward,
 * lookup-first; final DA − DA0; W_DA per match; the CA's tactic measures, §5.3). Pure: the host
 * reads the runs from the lab and passes them in, so the tables of a study depend on its runs only.
 */
import { meanInterval, pairedDifference, wilsonInterval } from '../stats/intervals';
import type { MeanInterval, PairedDifference } from '../stats/intervals';
import type { HeldoutMetrics } from '../arena/evaluate';
import { PANEL_METRICS } from '../arena/panel';
import type { PanelMetric, PanelSummary } from '../arena/panel';
import type { GymSummary, MatchSummary } from './run.machine';
import { convergedTactic, featureSplits, tacticDistribution } from '../labels/tactic-evidence';
import type { FeatureSplit, Opening } from '../labels/tactic-evidence';

/** Held-out metrics of one DA checkpoint: the fields of HeldoutMetrics a study reads. */
export type HeldoutFigures = Pick<HeldoutMetrics, 'episodes' | 'routingAccuracy' | 'strictPass' | 'fail' | 'meanReward' | 'lookupFirst'> &
  Partial<Pick<HeldoutMetrics, 'perScenario'>>;

/** One DA checkpoint's evaluation as the run stores it (host/coevolution/actors.ts CheckpointEvaluation). */
export interface StudyCheckpointEvaluation {
  da: string;
  ca: string;
  heldout: HeldoutFigures;
  reference?: { ca: string; heldout: HeldoutFigures };
}

/** 'interrupted': stored as 'running' in a study whose process is gone (shown so; resumable). */
export type StudyRunStatus = 'pending' | 'running' | 'interrupted' | 'finished' | 'failed';

/** One (arm, seed) of a study with what its run produced. */
export interface StudyRunData {
  arm: string;
  seed: number;
  runId: string | null;
  status: StudyRunStatus;
  error: string | null;
  matches: readonly MatchSummary[];
  gyms: readonly GymSummary[];
  evaluation: { checkpoints: readonly StudyCheckpointEvaluation[] } | null;
  /** The final DA against the `full` arm's final CA of the same seed (fixed-opponent arms; study_evaluations 'vs-full-ca'). */
  vsFullCa?: HeldoutFigures | null;
  /** The CA's arena openings in the run's first match (CA0's generation) and its last (the final CA's); absent: not read. */
  openings?: { first: readonly Opening[]; last: readonly Opening[] };
  /** The final DA's panel evaluation (study_evaluations 'panel', `study panel S`); null before it ran. */
  panel?: StudyPanelFigures | null;
}

/**
 * One final DA's counterpart-shift figures (core/arena/panel.ts): its panel average, its score
 * against its training counterpart, and the mismatch gap (training − panel), per metric. A study
 * takes them per seed, so its intervals are over seeds.
 */
export interface StudyPanelFigures {
  da: string;
  /** Counterparts on the panel that were measured. */
  counterparts: string[];
  panel: Record<PanelMetric, number>;
  training: Record<PanelMetric, number> | null;
  gap: Record<PanelMetric, number> | null;
}

export function studyPanelFigures(da: string, s: PanelSummary): StudyPanelFigures {
  const of = (f: (k: PanelMetric) => number) => Object.fromEntries(PANEL_METRICS.map(([k]) => [k, f(k)])) as Record<PanelMetric, number>;
  return {
    da,
    counterparts: s.rows.map((r) => r.counterpart.key),
    panel: of((k) => s.average[k].mean),
    training: s.training ? of((k) => s.training!.cells[k].value) : null,
    gap: s.gap ? of((k) => s.gap![k].mean) : null,
  };
}

const HELDOUT_FIELDS = [
  ['routing', 'routingAccuracy', 'held-out routing'],
  ['strictPass', 'strictPass', 'strict PASS'],
  ['fail', 'fail', 'FAIL'],
  ['meanReward', 'meanReward', 'mean reward'],
  ['lookupFirst', 'lookupFirst', 'lookup-first'],
] as const;

export const TACTIC_FIELDS = [
  ['entityDensity', 'meanEntityDensity', 'entity density'],
  ['tokens', 'meanTokens', 'opening tokens'],
  ['decoyRate', 'decoyRate', 'decoy rate'],
  ['hedgeRate', 'hedgeRate', 'hedge rate'],
] as const;

/** A scalar measure of one finished run: key, label, and its value (NaN when the run lacks it). */
export interface MeasureDef {
  key: string;
  label: string;
  /** Rates in [0, 1] print as percentages. */
  rate: boolean;
  /** The range the measure cannot leave (a rate [0, 1], a difference of rates [−1, 1]): its intervals are cut to it. */
  bounds?: readonly [number, number];
  of: (r: StudyRunData) => number;
}

const LEVEL: readonly [number, number] = [0, 1];
const DIFFERENCE: readonly [number, number] = [-1, 1];
/** A count per run (matches, gyms): never below 0. */
const COUNT: readonly [number, number] = [0, Infinity];
/** A rate's level or difference bounds; a mean reward has none. */
const bounded = (k: string, b: readonly [number, number]) => (k !== 'meanReward' ? { bounds: b } : {});
/** The range of a − b for two values of a measure's range. */
const differenceOf = (b: readonly [number, number] | undefined): readonly [number, number] | undefined => (b ? [b[0] - b[1], b[1] - b[0]] : undefined);

/** The final DA: the DA of the last match (no gym follows it). DA0: the DA of the first. */
function finalAndDa0(r: StudyRunData): { final: StudyCheckpointEvaluation | undefined; da0: StudyCheckpointEvaluation | undefined } {
  const evals = r.evaluation?.checkpoints ?? [];
  const finalName = r.matches.at(-1)?.da;
  const da0Name = r.matches[0]?.da;
  return {
    final: evals.find((e) => e.da === finalName) ?? evals.at(-1),
    da0: evals.find((e) => e.da === da0Name) ?? evals[0],
  };
}

/** W_DA drops after a CA gym and later recovers after a DA gym (RL-ADA §5.1's non-monotonic W_DA). */
export function nonMonotonic(matches: readonly MatchSummary[], gyms: readonly GymSummary[]): boolean {
  const w = matches.map((m) => m.wDa);
  const after = (role: 'DA' | 'CA', i: number) => gyms.some((g) => g.role === role && g.afterMatch === i + 1);
  for (let i = 0; i + 1 < w.length; i++) {
    if (!(after('CA', i) && w[i + 1]! < w[i]!)) continue;
    for (let j = i + 1; j + 1 < w.length; j++) if (after('DA', j) && w[j + 1]! > w[j]!) return true;
  }
  return false;
}

const NaNIfMissing = (v: number | undefined) => (v === undefined ? Number.NaN : v);

/**
 * The mean change of W_DA across the gyms of one role: W_DA of the match after a gym of `role`
 * minus that of the match before, over the gyms after which only that role trained (NaN when there
 * is none). How far a CA gym pulls W_DA down and a DA gym lifts it, next to the shape count
 * (`nonMonotonic`), which counts any drop, however small against a match's sampling noise.
 */
export function wDaChangeAfter(role: 'DA' | 'CA', matches: readonly MatchSummary[], gyms: readonly GymSummary[]): number {
  const changes: number[] = [];
  for (let i = 0; i + 1 < matches.length; i++) {
    const roles = new Set(gyms.filter((g) => g.afterMatch === i + 1).map((g) => g.role));
    if (roles.size === 1 && roles.has(role)) changes.push(matches[i + 1]!.wDa - matches[i]!.wDa);
  }
  return changes.length ? changes.reduce((a, b) => a + b, 0) / changes.length : Number.NaN;
}

export const MEASURES: readonly MeasureDef[] = [
  ...HELDOUT_FIELDS.flatMap(([k, f, label]): MeasureDef[] => [
    {
      key: `final.${k}`,
      label: `final DA ${label} (own CA)`,
      rate: k !== 'meanReward',
      ...bounded(k, LEVEL),
      of: (r) => NaNIfMissing(finalAndDa0(r).final?.heldout[f]),
    },
    {
      key: `da0.${k}`,
      label: `DA0 ${label} (own CA)`,
      rate: k !== 'meanReward',
      ...bounded(k, LEVEL),
      of: (r) => NaNIfMissing(finalAndDa0(r).da0?.heldout[f]),
    },
    {
      key: `gain.${k}`,
      label: `final − DA0 ${label} (own CA)`,
      rate: k !== 'meanReward',
      ...bounded(k, DIFFERENCE),
      of: (r) => {
        const { final, da0 } = finalAndDa0(r);
        return final && da0 ? final.heldout[f] - da0.heldout[f] : Number.NaN;
      },
    },
    {
      key: `final.scripted.${k}`,
      label: `final DA ${label} (scripted CA)`,
      rate: k !== 'meanReward',
      ...bounded(k, LEVEL),
      of: (r) => NaNIfMissing(finalAndDa0(r).final?.reference?.heldout[f]),
    },
    {
      key: `da0.scripted.${k}`,
      label: `DA0 ${label} (scripted CA)`,
      rate: k !== 'meanReward',
      ...bounded(k, LEVEL),
      of: (r) => NaNIfMissing(finalAndDa0(r).da0?.reference?.heldout[f]),
    },
    {
      key: `gain.scripted.${k}`,
      label: `final − DA0 ${label} (scripted CA)`,
      rate: k !== 'meanReward',
      ...bounded(k, DIFFERENCE),
      of: (r) => {
        const { final, da0 } = finalAndDa0(r);
        return final?.reference && da0?.reference ? final.reference.heldout[f] - da0.reference.heldout[f] : Number.NaN;
      },
    },
    {
      // The full arm's own final CA: for `full` its own evaluation, for a fixed-opponent arm the study's extra one.
      key: `final.fullCa.${k}`,
      label: `final DA ${label} (full arm's final CA)`,
      rate: k !== 'meanReward',
      ...bounded(k, LEVEL),
      of: (r) => (r.arm === 'full' ? NaNIfMissing(finalAndDa0(r).final?.heldout[f]) : NaNIfMissing(r.vsFullCa?.[f])),
    },
  ]),
  ...PANEL_METRICS.flatMap(([k, , label]): MeasureDef[] => [
    {
      key: `panel.${k}`,
      label: `final DA ${label} (panel average)`,
      rate: k !== 'meanReward',
      ...bounded(k, LEVEL),
      of: (r) => NaNIfMissing(r.panel?.panel[k]),
    },
    {
      key: `panel.training.${k}`,
      label: `final DA ${label} (training counterpart)`,
      rate: k !== 'meanReward',
      ...bounded(k, LEVEL),
      of: (r) => NaNIfMissing(r.panel?.training?.[k]),
    },
    {
      key: `panel.gap.${k}`,
      label: `mismatch gap ${label} (training − panel)`,
      rate: k !== 'meanReward',
      ...bounded(k, DIFFERENCE),
      of: (r) => NaNIfMissing(r.panel?.gap?.[k]),
    },
  ]),
  // Counts cannot go below 0 (a 10-seed quick study printed "DA gyms 0.70 [-0.06, 1.46]").
  { key: 'matches', label: 'matches', rate: false, bounds: COUNT, of: (r) => r.matches.length },
  { key: 'daGyms', label: 'DA gyms', rate: false, bounds: COUNT, of: (r) => r.gyms.filter((g) => g.role === 'DA').length },
  { key: 'caGyms', label: 'CA gyms', rate: false, bounds: COUNT, of: (r) => r.gyms.filter((g) => g.role === 'CA').length },
  { key: 'finalWDa', label: 'W_DA of the last match', rate: true, bounds: LEVEL, of: (r) => NaNIfMissing(r.matches.at(-1)?.wDa) },
  { key: 'wDaAfterCaGym', label: 'ΔW_DA after a CA gym', rate: true, bounds: DIFFERENCE, of: (r) => wDaChangeAfter('CA', r.matches, r.gyms) },
  { key: 'wDaAfterDaGym', label: 'ΔW_DA after a DA gym', rate: true, bounds: DIFFERENCE, of: (r) => wDaChangeAfter('DA', r.matches, r.gyms) },
];

/** k of n seeds with Wilson's interval (a count over seeds). */
export interface SeedCount {
  k: number;
  n: number;
  ci: [number, number] | null;
}

export interface ArmSummary {
  arm: string;
  seeds: { total: number; finished: number; failed: number };
  measures: Record<string, MeanInterval>;
  /** The DA trained (≥ 1 DA gym). */
  daTrained: SeedCount;
  nonMonotonic: SeedCount;
  /** W_DA per match (1-based), over the seeds that played it. */
  wDa: (MeanInterval & { match: number })[];
  /** The CA's tactic measures per match (one CA generation per match), over seeds. */
  tactics: Record<(typeof TACTIC_FIELDS)[number][0], (MeanInterval & { match: number })[]>;
  /**
   * Per tactic measure, the seeds whose last match's value is above (up) or below (down) the first
   * match's: a measure moves in a consistent direction when most seeds agree.
   */
  tacticDirection: Record<(typeof TACTIC_FIELDS)[number][0], { up: number; down: number; n: number }>;
  /** Which tactic the CA converged to, from its openings (null: no run's openings were read). */
  tactic: TacticConvergence | null;
  /**
   * Held-out routing per scenario, DA0 and the final DA against the run's own final CA, over the
   * seeds whose evaluations carry the scenario: where the gains of the arena reach new wording.
   */
  heldoutScenarios: HeldoutScenario[];
  /**
   * Held-out routing of the scenarios that share an intent with the arena against those that do
   * not (heldoutWithArenaIntents): the gain the arena's training carries to held-out wording of
   * intents it trains on, and the part that transfers to intents it never plays. Null without
   * per-scenario figures or when either group is empty.
   */
  heldoutReach: HeldoutReach | null;
}

/** One group of held-out scenarios: per seed the mean over its scenarios, then mean [95% t] over seeds. */
export interface HeldoutReachGroup {
  scenarios: string[];
  da0: MeanInterval;
  final: MeanInterval;
  /** final − DA0, paired within each seed. */
  gain: MeanInterval;
}

export interface HeldoutReach {
  /** Scenarios at least one of whose intents an arena scenario plays. */
  arenaIntents: HeldoutReachGroup;
  /** Scenarios none of whose intents the arena plays. */
  otherIntents: HeldoutReachGroup;
  /** arenaIntents' gain − otherIntents', paired within each seed: how much of the gain stays with the arena's intents. */
  gainDifference: MeanInterval;
}

/** One scenario's routing in one run: DA0's and the final DA's (rates in [0, 1]). */
export interface ScenarioPair {
  scenarioId: string;
  da0: number;
  final: number;
}

/** A scenario's routing of DA0 and of the final DA and the gain, over the runs that carry it. */
export interface ScenarioGain {
  scenarioId: string;
  da0: MeanInterval;
  final: MeanInterval;
  /** final − DA0, paired within each seed. */
  gain: MeanInterval;
}

export type HeldoutScenario = ScenarioGain;

/**
 * Each scenario's DA0, final and gain, mean [95% t] over the runs that carry it (scenarios in
 * first-seen order), the rates times `scale`; `bounds` cut the DA0 and final intervals (`level`)
 * and the gain's (`difference`) to what the measure can take. The held-out per-scenario table and
 * the arena-only estimate's.
 */
export function scenarioGains(
  runs: readonly (readonly ScenarioPair[])[],
  scale = 1,
  bounds?: { level: readonly [number, number]; difference: readonly [number, number] },
): ScenarioGain[] {
  const byScenario = new Map<string, ScenarioPair[]>();
  for (const pairs of runs)
    for (const p of pairs) {
      if (!byScenario.has(p.scenarioId)) byScenario.set(p.scenarioId, []);
      byScenario.get(p.scenarioId)!.push(p);
    }
  return [...byScenario].map(([scenarioId, xs]) => ({
    scenarioId,
    da0: meanInterval(
      xs.map((x) => scale * x.da0),
      0.95,
      bounds?.level,
    ),
    final: meanInterval(
      xs.map((x) => scale * x.final),
      0.95,
      bounds?.level,
    ),
    gain: meanInterval(
      xs.map((x) => scale * (x.final - x.da0)),
      0.95,
      bounds?.difference,
    ),
  }));
}

/** A run's held-out routing per scenario against its own final CA, DA0 and the final DA: the scenarios both evaluations carry. */
function heldoutPairs(r: StudyRunData): ScenarioPair[] {
  const { final, da0 } = finalAndDa0(r);
  const after = new Map((final?.heldout.perScenario ?? []).map((p) => [p.scenarioId, p.routingAccuracy]));
  return (da0?.heldout.perScenario ?? []).flatMap((p) => {
    const f = after.get(p.scenarioId);
    return f === undefined ? [] : [{ scenarioId: p.scenarioId, da0: p.routingAccuracy, final: f }];
  });
}

/** Each held-out scenario's routing, DA0 → final DA (own CA), over the runs (scenarios in first-seen order). */
function heldoutScenarios(runs: readonly StudyRunData[]): HeldoutScenario[] {
  return scenarioGains(runs.map(heldoutPairs), 1, { level: LEVEL, difference: DIFFERENCE });
}

/**
 * heldoutScenarios' figures grouped by whether the arena plays a scenario's intents
 * (`withArenaIntents`: their ids), over the seeds that carry a scenario of each group.
 */
function heldoutReach(runs: readonly StudyRunData[], withArenaIntents: ReadonlySet<string> | undefined): HeldoutReach | null {
  if (!withArenaIntents) return null;
  const seeds = runs
    .map(heldoutPairs)
    .map((pairs) => ({ inArena: pairs.filter((p) => withArenaIntents.has(p.scenarioId)), other: pairs.filter((p) => !withArenaIntents.has(p.scenarioId)) }))
    .filter((s) => s.inArena.length && s.other.length);
  if (!seeds.length) return null;
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const of = (k: 'inArena' | 'other', f: (p: ScenarioPair) => number) => seeds.map((s) => mean(s[k].map(f)));
  const gain = (p: ScenarioPair) => p.final - p.da0;
  const group = (k: 'inArena' | 'other'): HeldoutReachGroup => ({
    scenarios: [...new Set(seeds.flatMap((s) => s[k].map((p) => p.scenarioId)))],
    da0: meanInterval(
      of(k, (p) => p.da0),
      0.95,
      LEVEL,
    ),
    final: meanInterval(
      of(k, (p) => p.final),
      0.95,
      LEVEL,
    ),
    gain: meanInterval(of(k, gain), 0.95, DIFFERENCE),
  });
  const inArena = of('inArena', gain);
  const other = of('other', gain);
  return {
    arenaIntents: group('inArena'),
    otherIntents: group('other'),
    gainDifference: meanInterval(
      inArena.map((g, i) => g - other[i]!),
      0.95,
      [-2, 2],
    ),
  };
}

/**
 * The tactic the CA converged to over an arm's seeds (core/labels/tactic-evidence.ts): the
 * rule-based tactic labels of the first and the last match's openings pooled over seeds, the
 * dominant one at the end with example openings (CA wins first), how many seeds' last match has
 * that same dominant tactic, and the evidence for why reward pressure favours it: the CA's win rate
 * in the last match with and without each feature of an opening, and the same in the first match
 * (CA0 against DA0), so a feature that paid early and that the CA still gave up can be seen.
 */
export interface TacticConvergence {
  first: { tactic: string; share: number; n: number }[];
  last: { tactic: string; share: number; n: number }[];
  converged: { tactic: string; share: number; examples: string[] } | null;
  /** Seeds whose last match's dominant tactic is `converged.tactic`. */
  seedsAgreeing: SeedCount;
  /** The last match's splits. */
  splits: FeatureSplit[];
  /** The first match's (CA0 against DA0). */
  firstSplits: FeatureSplit[];
}

function tacticConvergence(runs: readonly StudyRunData[]): TacticConvergence | null {
  const read = runs.filter((r) => r.openings);
  if (read.length === 0) return null;
  const first = read.flatMap((r) => r.openings!.first);
  const last = read.flatMap((r) => r.openings!.last);
  const converged = convergedTactic(last);
  return {
    first: tacticDistribution(first),
    last: tacticDistribution(last),
    converged,
    seedsAgreeing: seedCount(read.map((r) => converged !== null && tacticDistribution(r.openings!.last)[0]?.tactic === converged.tactic)),
    splits: featureSplits(last),
    firstSplits: featureSplits(first),
  };
}

export interface PairSummary {
  a: string;
  b: string;
  /** a − b per measure, paired by seed. */
  measures: Record<string, PairedDifference>;
}

export interface StudySummary {
  arms: ArmSummary[];
  /** Every arm against the baseline (the one asked for, else full when present, else the first arm). */
  paired: PairSummary[];
  baseline: string | null;
  /**
   * Held-out episodes per DA and opponent in the finished runs' evaluations, each count once,
   * ascending ([] before any run finished): what one seed's rate rests on (192 in the paper preset;
   * 24 before, where one episode moved a rate by 4.2 points).
   */
  heldoutEpisodes: number[];
}

/**
 * Is this measure read from held-out evaluation (the held-out scenarios and the bank's held-out
 * slice)? Every final/DA0/gain measure is, and so is the panel (its counterparts play the held-out
 * scenarios); the run's own course (matches, gyms, W_DA) and the CA's tactics are arena figures.
 */
export function isHeldoutMeasure(key: string): boolean {
  return /^(final|da0|gain|panel)\./.test(key);
}

/**
 * The summary without a held-out figure (`sparring study --arena-only`): for choosing settings on
 * the arena without reading what evaluation will report. Held-out measures and per-scenario
 * held-out rows go; matches, gyms, W_DA, the CA's tactics and the seeds' counts stay.
 */
export function arenaOnlySummary(s: StudySummary): StudySummary {
  const arena = <T>(m: Record<string, T>) => Object.fromEntries(Object.entries(m).filter(([k]) => !isHeldoutMeasure(k)));
  return {
    ...s,
    arms: s.arms.map((a) => ({ ...a, measures: arena(a.measures), heldoutScenarios: [], heldoutReach: null })),
    paired: s.paired.map((p) => ({ ...p, measures: arena(p.measures) })),
  };
}

/** The sentence that says what each run's held-out figures rest on; '' when no run has them yet. */
export function heldoutEpisodesNote(s: Pick<StudySummary, 'heldoutEpisodes'>): string {
  return s.heldoutEpisodes.length ? `Each run's held-out figures: ${s.heldoutEpisodes.join(' or ')} episodes per DA and opponent.` : '';
}

function seedCount(flags: readonly boolean[]): SeedCount {
  const k = flags.filter(Boolean).length;
  return { k, n: flags.length, ci: wilsonInterval(k, flags.length) };
}

function perMatch(runs: readonly StudyRunData[], of: (m: MatchSummary) => number, bounds: readonly [number, number]): (MeanInterval & { match: number })[] {
  const longest = Math.max(0, ...runs.map((r) => r.matches.length));
  return Array.from({ length: longest }, (_, i) => ({
    match: i + 1,
    ...meanInterval(
      runs.flatMap((r) => (r.matches[i] ? [of(r.matches[i])] : [])),
      0.95,
      bounds,
    ),
  }));
}

/**
 * `withArenaIntents`: the held-out scenarios that share an intent with the arena
 * (heldoutWithArenaIntents of the runs' domain); without it no arm has a `heldoutReach`.
 */
export function summariseStudy(
  arms: readonly string[],
  runs: readonly StudyRunData[],
  baselineArm?: string,
  withArenaIntents?: ReadonlySet<string>,
): StudySummary {
  if (baselineArm !== undefined && !arms.includes(baselineArm))
    throw new Error(`baseline arm "${baselineArm}" is not an arm of the study (${arms.join(', ')})`);
  const finishedOf = (arm: string) => runs.filter((r) => r.arm === arm && r.status === 'finished').sort((x, y) => x.seed - y.seed);
  const armSummaries: ArmSummary[] = arms.map((arm) => {
    const all = runs.filter((r) => r.arm === arm);
    const done = finishedOf(arm);
    return {
      arm,
      seeds: { total: all.length, finished: done.length, failed: all.filter((r) => r.status === 'failed').length },
      measures: Object.fromEntries(MEASURES.map((m) => [m.key, meanInterval(done.map(m.of), 0.95, m.bounds)])),
      daTrained: seedCount(done.map((r) => r.gyms.some((g) => g.role === 'DA'))),
      nonMonotonic: seedCount(done.map((r) => nonMonotonic(r.matches, r.gyms))),
      wDa: perMatch(done, (m) => m.wDa, LEVEL),
      tactics: Object.fromEntries(
        TACTIC_FIELDS.map(([k, f]) => [k, perMatch(done, (m) => m.tactics[f], k === 'decoyRate' || k === 'hedgeRate' ? LEVEL : [0, Infinity])]),
      ) as ArmSummary['tactics'],
      tacticDirection: Object.fromEntries(
        TACTIC_FIELDS.map(([k, f]) => {
          const moved = done.filter((r) => r.matches.length > 1).map((r) => r.matches.at(-1)!.tactics[f] - r.matches[0]!.tactics[f]);
          return [k, { up: moved.filter((d) => d > 0).length, down: moved.filter((d) => d < 0).length, n: moved.length }];
        }),
      ) as ArmSummary['tacticDirection'],
      tactic: tacticConvergence(done),
      heldoutScenarios: heldoutScenarios(done),
      heldoutReach: heldoutReach(done, withArenaIntents),
    };
  });
  const baseline = baselineArm ?? (arms.includes('full') ? 'full' : (arms[0] ?? null));
  const bySeed = (arm: string, m: MeasureDef) => new Map(finishedOf(arm).map((r) => [r.seed, m.of(r)]));
  const paired: PairSummary[] =
    baseline === null
      ? []
      : arms
          .filter((a) => a !== baseline)
          .map((a) => ({
            a,
            b: baseline,
            measures: Object.fromEntries(MEASURES.map((m) => [m.key, pairedDifference(bySeed(a, m), bySeed(baseline, m), 0.95, differenceOf(m.bounds))])),
          }));
  const heldoutEpisodes = new Set(
    runs
      .filter((r) => r.status === 'finished')
      .flatMap((r) => (r.evaluation?.checkpoints ?? []).flatMap((c) => [c.heldout.episodes, ...(c.reference ? [c.reference.heldout.episodes] : [])])),
  );
  return { arms: armSummaries, paired, baseline, heldoutEpisodes: [...heldoutEpisodes].sort((x, y) => x - y) };
}

/**
 * The processors a study's runs ran on, with how many runs each; more than one means figures can
 * differ at the float level between runs of the same config (onnxruntime's kernels follow the
 * instruction set), so the study is not a one-machine result.
 */
export function studyHosts(entries: readonly { host: string | null }[]): { host: string; runs: number }[] {
  const n = new Map<string, number>();
  for (const e of entries) if (e.host) n.set(e.host, (n.get(e.host) ?? 0) + 1);
  return [...n].map(([host, runs]) => ({ host, runs }));
}
