/**
 * The macro stopping rule (RL-ADA §3.6) and the choice of the weaker agent (§3.5).
 *
 * Training stops when the competency gate W_DA(t) ≥ τ_DA holds for P consecutive matches and the
 * stability gate |W_DA(t) − W_DA(t−1)| ≤ ε holds on the latest of them, once at least n_min
 * matches have been played; or when n_max matches are exhausted. The win-rate stability is the
 * paper's practical surrogate for ε-Nash convergence.
 */
import type { StoppingConfig } from '../config';

/**
 * `gym_budget`: a run with a fixed DA gym budget (RunConfig.schedule.daGyms) spent it. `rounds`:
 * an IB-RL run with a fixed number of rounds (RunConfig.schedule.rounds) played them.
 */
export type StopReason = 'converged' | 'max_matches' | 'gym_budget' | 'rounds';

export interface StopDecision {
  stop: boolean;
  reason: StopReason | null;
  /** Matches played so far (t). */
  t: number;
  /** Consecutive matches up to t with W_DA ≥ τ_DA. */
  streak: number;
  /** |W_DA(t) − W_DA(t−1)|, null at t = 1. */
  delta: number | null;
  competencyGate: boolean;
  stabilityGate: boolean;
  /** The verdict in words, for the run log and the dashboard. */
  explanation: string;
}

const f2 = (x: number) => x.toFixed(2);

/** Decide after match t, given W_DA of matches 1..t in order. */
export function stoppingDecision(wDa: readonly number[], cfg: StoppingConfig): StopDecision {
  const t = wDa.length;
  if (t === 0) throw new Error('stoppingDecision: no matches yet');
  let streak = 0;
  for (let i = t - 1; i >= 0 && wDa[i]! >= cfg.tauDa; i--) streak++;
  const delta = t >= 2 ? Math.abs(wDa[t - 1]! - wDa[t - 2]!) : null;
  const competencyGate = streak >= cfg.P;
  // Rounding guards against 0.05000000000000004 failing ε = 0.05.
  const stabilityGate = delta !== null && Math.round(delta * 1e9) / 1e9 <= cfg.epsilon;
  const w = wDa[t - 1]!;
  const run = `${streak} match${streak === 1 ? '' : 'es'} in a row at or above it, ${cfg.P} needed`;
  const gates = `W_DA=${f2(w)} (τ_DA=${f2(cfg.tauDa)}: ${run}), |δ|=${delta === null ? 'n/a' : f2(delta)} (ε=${f2(cfg.epsilon)})`;

  if (t >= cfg.nMin && competencyGate && stabilityGate) {
    return { stop: true, reason: 'converged', t, streak, delta, competencyGate, stabilityGate, explanation: `stop at match ${t}: converged — ${gates}` };
  }
  if (t >= cfg.nMax) {
    return {
      stop: true,
      reason: 'max_matches',
      t,
      streak,
      delta,
      competencyGate,
      stabilityGate,
      explanation: `stop at match ${t}: n_max=${cfg.nMax} matches exhausted — ${gates}`,
    };
  }
  const why = t < cfg.nMin ? `fewer than n_min=${cfg.nMin} matches` : !competencyGate ? 'competency gate not held' : 'stability gate not met';
  return { stop: false, reason: null, t, streak, delta, competencyGate, stabilityGate, explanation: `continue after match ${t}: ${why} — ${gates}` };
}

export type Role = 'DA' | 'CA';

/** A shortfall in words: "0.10 below τ_DA=0.60", "above τ_DA=0.60 by 0.40" (never "-0.40 below"). */
export function gap(shortfall: number, floor: string): string {
  const r = Math.round(shortfall * 100) / 100;
  if (r > 0) return `${f2(r)} below ${floor}`;
  if (r < 0) return `above ${floor} by ${f2(-r)}`;
  return `at ${floor}`;
}

export interface WeakerAgent {
  role: Role;
  /** How far each agent is below its competency floor (negative: above it). */
  daShortfall: number;
  caShortfall: number;
  explanation: string;
}

/**
 * The weaker agent is the one further below its competency floor: τ_DA for the DA's W_DA,
 * r_CA for the CA's win rate 1 − W_DA. Ties go to the DA (the agent being hardened).
 */
export function weakerAgent(wDa: number, cfg: StoppingConfig): WeakerAgent {
  const daShortfall = cfg.tauDa - wDa;
  const caShortfall = cfg.rCa - (1 - wDa);
  const role: Role = daShortfall >= caShortfall ? 'DA' : 'CA';
  return {
    role,
    daShortfall,
    caShortfall,
    explanation: `${role} trains: the DA is ${gap(daShortfall, `τ_DA=${f2(cfg.tauDa)}`)}, the CA is ${gap(caShortfall, `r_CA=${f2(cfg.rCa)}`)} (W_CA=${f2(1 - wDa)})`,
  };
}
