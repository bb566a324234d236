/**
 * The arena-only estimate of a study's held-out gain (`sparring study estimate S`): for each
 * finished run, DA0 and the final DA each play the run's final CA on the arena scenarios, as the
 * run's own matches play, the CA speaking the run's train slice of the bank or the validation
 * slice its config kept out. Settings can be chosen on it without reading anything held out.
 * Pure: the host plays the matches and stores each run's figures (study_evaluations, kind
 * `arena-estimate:<slice>`); this file turns them into the tables.
 */
import { meanInterval, pairedDifference } from '../stats/intervals';
import type { MeanInterval, PairedDifference } from '../stats/intervals';
import { fixed, meanText } from '../stats/format';
import { scenarioGains } from './study-summary';
import type { ScenarioGain, ScenarioPair } from './study-summary';

/** A rate in points cannot leave [0, 100], nor a change of one [−100, 100]: intervals are cut to these. */
const POINTS = [0, 100] as const;
const POINT_GAIN = [-100, 100] as const;

/** The bank slice the CA speaks in an estimate. */
export type EstimateSlice = 'train' | 'validation';

/**
 * The scenarios an estimate plays: the arena's, or 'other-intents', synthetic scenarios of the
 * 'validation' half of the intents no arena or held-out scenario names (core/rl/demos.ts
 * otherIntentScenarios), which no gym ever plays (`gym.daOtherIntents` plays the other half): how
 * far a DA's gains reach intents it never trained against the CA on, the part of held-out
 * evaluation the arena cannot show, without reading anything held out.
 */
export type EstimateScenarios = 'arena' | 'other-intents';

/** Episodes per scenario of an 'other-intents' estimate's matches (38 scenarios; the arena's matches play the run's 18 on 10). */
export const OTHER_INTENTS_EPISODES = 8;

/** The study_evaluations kind a run's estimate on `slice` (and `scenarios`) is stored under. */
export const estimateKind = (slice: EstimateSlice, scenarios: EstimateScenarios = 'arena') => `${scenarios}-estimate:${slice}`;

/** The seed both matches of a run's estimate play: the one `match --run R --seed 1000+seed` takes. */
export const estimateSeed = (runSeed: number) => 1000 + runSeed;

/** One run's figures: DA0 and the final DA against the run's final CA (rates in [0, 1]). */
export interface ArenaEstimateFigures {
  speak: EstimateSlice;
  da0: string;
  finalDa: string;
  finalCa: string;
  /** The seed both matches played (estimateSeed of the run's seed). */
  matchSeed: number;
  matches: { da0: string; finalDa: string };
  da0Metrics: { routing: number; strictPass: number; episodes: number };
  finalMetrics: { routing: number; strictPass: number; episodes: number };
}

/**
 * A run's figures as the tables read them: the stored ones, with each scenario's routing in its two
 * matches (their per-scenario win rates, read from the lab, not stored twice) when both are there.
 */
export type EstimateRun = ArenaEstimateFigures & { arm: string; seed: number; perScenario?: readonly ScenarioPair[] };

/** One measure of one arm: DA0, the final DA and the gain (points), mean [95% t] over seeds; the gain paired against the baseline arm's. */
export interface EstimateMeasure {
  da0: MeanInterval;
  final: MeanInterval;
  gain: MeanInterval;
  /** Absent on the baseline arm itself. */
  gainVsBaseline?: PairedDifference;
}

export interface EstimateTables {
  speak: EstimateSlice;
  /** Which scenarios the runs' matches played (absent in tables stored before there was a choice: the arena's). */
  scenarios?: EstimateScenarios;
  baseline: string;
  arms: {
    arm: string;
    seeds: number;
    routing: EstimateMeasure;
    strictPass: EstimateMeasure;
    /**
     * Routing per arena scenario (first-seen order): which scenarios the gain comes from, and
     * which it leaves behind (the transfer_to_human ones a DA gym can unlearn), chosen on without
     * reading anything held out. Empty when no run's matches are in the lab.
     */
    scenarios: ScenarioGain[];
  }[];
  /** Per (arm, seed) run, as stored. */
  runs: EstimateRun[];
}

/** The tables of an estimate from its runs' figures. */
export function estimateTables(
  speak: EstimateSlice,
  arms: readonly string[],
  runs: readonly EstimateRun[],
  baseline: string,
  scenarios: EstimateScenarios = 'arena',
): EstimateTables {
  const perSeed = (arm: string, f: (x: ArenaEstimateFigures) => number) => new Map(runs.filter((r) => r.arm === arm).map((r) => [r.seed, 100 * f(r)]));
  const gain = (arm: string, m: 'routing' | 'strictPass') => perSeed(arm, (x) => x.finalMetrics[m] - x.da0Metrics[m]);
  const of = (arm: string, m: 'routing' | 'strictPass'): EstimateMeasure => ({
    // Points: a rate stays in [0, 100], a gain or its paired difference in [−100, 100] (meanInterval's bounds).
    da0: meanInterval([...perSeed(arm, (x) => x.da0Metrics[m]).values()], 0.95, POINTS),
    final: meanInterval([...perSeed(arm, (x) => x.finalMetrics[m]).values()], 0.95, POINTS),
    gain: meanInterval([...gain(arm, m).values()], 0.95, POINT_GAIN),
    ...(arm === baseline ? {} : { gainVsBaseline: pairedDifference(gain(arm, m), gain(baseline, m), 0.95, [-200, 200]) }),
  });
  return {
    speak,
    scenarios,
    baseline,
    arms: arms.map((arm) => ({
      arm,
      seeds: runs.filter((r) => r.arm === arm).length,
      routing: of(arm, 'routing'),
      strictPass: of(arm, 'strictPass'),
      // In points, as the estimate's other figures.
      scenarios: scenarioGains(
        runs.filter((r) => r.arm === arm).map((r) => r.perScenario ?? []),
        100,
        { level: POINTS, difference: POINT_GAIN },
      ),
    })),
    runs: [...runs],
  };
}

/** A figure of an estimate (points) with its interval, signed where it is a difference; '—' without seeds. */
export function estimateFigure(m: MeanInterval, signed: boolean): string {
  if (m.n === 0) return '—';
  const f = (v: number) => {
    const s = fixed(v, 1);
    return signed && !s.startsWith('-') ? `+${s}` : s;
  };
  return meanText(m, f);
}

/** What an estimate's matches played, in words. */
function scenariosPhrase(t: Pick<EstimateTables, 'scenarios'>): string {
  return t.scenarios === 'other-intents'
    ? `synthetic scenarios of the intents no arena, held-out or gym scenario names (${OTHER_INTENTS_EPISODES} episodes each)`
    : 'arena scenarios';
}

/** The estimate as one table (a row per arm and measure), as `study estimate`, `study show` and `report --study` print it. */
export function estimateView(t: EstimateTables): { title: string; header: string[]; rows: string[][] } {
  return {
    title: `DA0 and the final DA against each run's final CA, ${scenariosPhrase(t)}, CA speaking the run's ${t.speak === 'validation' ? 'validation slice' : 'train slice'}; points, mean [95% t] over seeds`,
    header: ['arm', 'measure', 'seeds', 'DA0', 'final DA', 'gain', `gain − ${t.baseline}'s (paired)`],
    rows: t.arms.flatMap((a) =>
      (['routing', 'strictPass'] as const).map((k) => [
        a.arm,
        k === 'routing' ? 'routing' : 'strict PASS',
        String(a.seeds),
        estimateFigure(a[k].da0, false),
        estimateFigure(a[k].final, false),
        estimateFigure(a[k].gain, true),
        a[k].gainVsBaseline ? estimateFigure(a[k].gainVsBaseline, true) : '(baseline)',
      ]),
    ),
  };
}

/**
 * The estimate's routing per arena scenario (`study estimate`, `study show`, `report --study`):
 * DA0 → final DA for the first arm with scenarios, and every arm's gain; null when no run's
 * matches are in the lab.
 */
export function estimateScenarioView(t: EstimateTables): { title: string; header: string[]; rows: string[][] } | null {
  const arms = t.arms.filter((a) => a.scenarios.length);
  const first = arms[0];
  if (!first) return null;
  const ids = [...new Set(arms.flatMap((a) => a.scenarios.map((x) => x.scenarioId)))];
  const of = (a: (typeof arms)[number], id: string) => a.scenarios.find((x) => x.scenarioId === id);
  return {
    title: `Routing per ${t.scenarios === 'other-intents' ? 'scenario of the other intents' : 'arena scenario'}, DA0 and the final DA against each run's final CA (${t.speak} slice); points, gain mean [95% t] over seeds`,
    header: ['scenario', `${first.arm} DA0 → final`, ...arms.map((a) => `${a.arm} gain`)],
    rows: ids.map((id) => {
      const f = of(first, id);
      return [
        id,
        f ? `${fixed(f.da0.mean, 1)} → ${fixed(f.final.mean, 1)}` : '—',
        ...arms.map((a) => {
          const x = of(a, id);
          return x ? estimateFigure(x.gain, true) : '—';
        }),
      ];
    }),
  };
}
