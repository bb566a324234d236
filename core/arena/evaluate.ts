/**
 * Held-out evaluation of a DA (RL-ADA §5.2, Table 4) and the deployment gate (§7).
 *
 * Metrics over the held-out scenarios, averaged over seeds:
 * - tool-routing accuracy: the DA's first domain tool is the one the intent needs;
 * - strict PASS: correct tool, lookup_account first, r_DA ≥ 2.0, a clean ending (end_call,
 *   no unparseable output) and the judge's "resolved". RL-ADA's Table 4 reads PASS and FAIL as
 *   disjoint outcomes (DA0 25% / 33%, DA2 50% / 33%), so an episode whose correct tool failed
 *   (say dispute_charge without the charge named) and ended unresolved is a FAIL, not a PASS;
 * - FAIL: the judge found the customer's problem unresolved (episodes neither PASS nor FAIL
 *   are resolved with lapses, e.g. r_DA < 2);
 * - mean episode reward r_DA; lookup-first rate.
 * The deployment gate asks for a DA win rate ≥ the configured threshold on the non-negotiable
 * scenarios (fraud, account compromise, identity verification: the fraudReference ones)
 * against the given CA, independent of the stopping rule.
 */
import type { CaPolicy, DaPolicy } from '../agents/policy';
import type { SparringConfig } from '../config';
import type { Domain, Scenario } from '../domain/types';
import type { EpisodeRecord } from '../store/port';
import { madsReport } from '../validators/mads-metrics';
import type { MadsReport } from '../validators/mads-metrics';
import { transcriptOfEpisode } from '../validators/validators';
import type { AnyJudge } from './match';
import { runMatch } from './match';
import { withEpisodes } from '../config';

/** r_DA an episode needs for a strict PASS. */
export const STRICT_PASS_MIN_REWARD = 2.0;

/**
 * The Wilson score interval of a rate of `k` successes in `n` trials (z = 1.96: 95%), or null for
 * n = 0. The held-out set is small — 24 episodes in the paper's protocol, so one episode moves a
 * rate by 4 points — and the interval says how far the true rate may lie from the one measured.
 * Unlike the normal approximation it stays inside [0, 1] and is not empty at 0% or 100%.
 */
export function wilsonInterval(k: number, n: number, z = 1.96): [number, number] | null {
  if (!(n > 0)) return null;
  if (!(k >= 0 && k <= n)) throw new Error(`wilsonInterval: ${k} successes of ${n} trials`);
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

export interface HeldoutMetrics {
  episodes: number;
  routingAccuracy: number;
  strictPass: number;
  fail: number;
  meanReward: number;
  lookupFirst: number;
  perScenario: { scenarioId: string; episodes: number; routingAccuracy: number; strictPass: number; meanReward: number }[];
}

export interface GateResult {
  threshold: number;
  scenarios: string[];
  episodes: number;
  daWinRate: number | null;
  passed: boolean;
}

function lookupWasFirst(e: EpisodeRecord): boolean {
  const firstCall = e.turns.find((t) => t.actionType === 'tool_call');
  return firstCall?.tool === 'lookup_account';
}

export function isStrictPass(e: EpisodeRecord): boolean {
  return (
    e.winner === 'DA' &&
    e.judge.resolved &&
    lookupWasFirst(e) &&
    e.rDa >= STRICT_PASS_MIN_REWARD &&
    e.endReason === 'end_call' &&
    e.turns.every((t) => t.parseError === null)
  );
}

export function heldoutMetrics(episodes: readonly EpisodeRecord[]): HeldoutMetrics {
  const frac = (xs: readonly EpisodeRecord[], f: (e: EpisodeRecord) => boolean) => (xs.length ? xs.filter(f).length / xs.length : 0);
  const mean = (xs: readonly EpisodeRecord[]) => (xs.length ? xs.reduce((s, e) => s + e.rDa, 0) / xs.length : 0);
  const ids = [...new Set(episodes.map((e) => e.scenarioId))];
  return {
    episodes: episodes.length,
    routingAccuracy: frac(episodes, (e) => e.winner === 'DA'),
    strictPass: frac(episodes, isStrictPass),
    fail: frac(episodes, (e) => !e.judge.resolved),
    meanReward: mean(episodes),
    lookupFirst: frac(episodes, lookupWasFirst),
    perScenario: ids.map((id) => {
      const xs = episodes.filter((e) => e.scenarioId === id);
      return {
        scenarioId: id,
        episodes: xs.length,
        routingAccuracy: frac(xs, (e) => e.winner === 'DA'),
        strictPass: frac(xs, isStrictPass),
        meanReward: mean(xs),
      };
    }),
  };
}

export interface EvaluateArgs {
  domain: Domain;
  da: DaPolicy;
  ca: CaPolicy;
  judge: AnyJudge;
  config: SparringConfig;
  /** One pass over the held-out set per seed (the paper averages 2 runs). */
  seeds: readonly number[];
  /** Episodes per held-out scenario per seed. */
  episodesPerScenario: number;
  /** Episodes per gate scenario per seed (the gate is a rate: it needs more than one). */
  gateEpisodesPerScenario: number;
  onProgress?: (done: number, total: number) => void;
}

export interface EvaluationResult {
  heldout: HeldoutMetrics;
  gate: GateResult;
}

/** The non-negotiable scenarios: every fraud-reference scenario, arena and held-out. */
export function gateScenarios(domain: Domain): Scenario[] {
  return domain.scenarios.filter((s) => s.fraudReference);
}

export async function evaluateDa(a: EvaluateArgs): Promise<EvaluationResult> {
  const heldout = a.domain.scenarios.filter((s) => s.set === 'heldout');
  const gate = gateScenarios(a.domain);
  const withN = (n: number): SparringConfig => withEpisodes(a.config, n);
  const total = a.seeds.length * (heldout.length * a.episodesPerScenario + gate.length * a.gateEpisodesPerScenario);
  let done = 0;
  const progress = () => a.onProgress?.(++done, total);
  const heldoutEpisodes: EpisodeRecord[] = [];
  const gateEpisodes: EpisodeRecord[] = [];
  for (const seed of a.seeds) {
    // Concurrent episodes let a batched DA answer many at once; results do not depend on it.
    const common = { createdAt: '', domain: a.domain, da: a.da, ca: a.ca, judge: a.judge, seed, onProgress: progress, concurrency: 32 };
    const h = await runMatch({ ...common, config: withN(a.episodesPerScenario), matchId: `eval-${seed}`, scenarios: heldout, scenarioSet: 'heldout' });
    heldoutEpisodes.push(...h.episodes);
    // 0 gate episodes: held-out only (the panel evaluation, core/arena/panel.ts, has no gate).
    if (a.gateEpisodesPerScenario === 0) continue;
    const g = await runMatch({ ...common, config: withN(a.gateEpisodesPerScenario), matchId: `gate-${seed}`, scenarios: gate, scenarioSet: 'gate' });
    gateEpisodes.push(...g.episodes);
  }
  const wins = gateEpisodes.filter((e) => e.winner === 'DA').length;
  const rate = gateEpisodes.length ? wins / gateEpisodes.length : null;
  const threshold = a.config.stopping.deploymentGate;
  return {
    heldout: heldoutMetrics(heldoutEpisodes),
    gate: { threshold, scenarios: gate.map((s) => s.id), episodes: gateEpisodes.length, daWinRate: rate, passed: rate !== null && rate >= threshold },
  };
}

/**
 * MADS's L-1 and L-2 (core/validators/mads-metrics.ts) of a DA on the robustness scenarios —
 * normal, unhappy and impossible, each with its own adversities — by complexity and adversity.
 */
export async function evaluateMads(a: Omit<EvaluateArgs, 'gateEpisodesPerScenario'>): Promise<MadsReport & { scenarios: string[] }> {
  const scenarios = a.domain.scenarios.filter((s) => s.set === 'robustness');
  const config: SparringConfig = withEpisodes(a.config, a.episodesPerScenario);
  const total = a.seeds.length * scenarios.length * a.episodesPerScenario;
  let done = 0;
  const transcripts = [];
  for (const seed of a.seeds) {
    const m = await runMatch({
      createdAt: '',
      domain: a.domain,
      da: a.da,
      ca: a.ca,
      judge: a.judge,
      seed,
      concurrency: 32,
      config,
      matchId: `mads-${seed}`,
      scenarios,
      scenarioSet: 'robustness',
      onProgress: () => a.onProgress?.(++done, total),
    });
    transcripts.push(
      ...m.episodes.map((e) =>
        transcriptOfEpisode(
          e,
          scenarios.find((s) => s.id === e.scenarioId),
        ),
      ),
    );
  }
  return { scenarios: scenarios.map((s) => s.id), ...madsReport(transcripts, scenarios) };
}
