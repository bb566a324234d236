/**
 * W_DA and W_CA per match with what the stopping rule looks at: the τ_DA line, the ε window
 * around the previous W_DA (a match inside it meets the stability gate), and the gyms between
 * matches, labelled with the agent that trained.
 */
import type { GymSummary, MatchSummary, StoppingConfig } from '../../../../core/contract/contract';

/** What the chart draws of the stopping rule; the host parses it from the run's config (RunDetail.stopping). */
export type StoppingView = Pick<StoppingConfig, 'tauDa' | 'epsilon' | 'nMax'>;

export interface WinRatePoint {
  match: number;
  matchId: string;
  wDa: number;
  wCa: number;
  competencyGate: boolean;
  stabilityGate: boolean;
  /** The ε window this match had to land in: W_DA(t−1) ± ε; null for the first match. */
  epsWindow: { lo: number; hi: number } | null;
  stop: boolean;
}

export interface GymSpan {
  /** Between match `afterMatch` and the next. */
  afterMatch: number;
  role: 'DA' | 'CA';
  label: string;
  /** Still training. */
  active: boolean;
}

export interface WinRateData {
  points: WinRatePoint[];
  gyms: GymSpan[];
  tau: number;
  epsilon: number;
  /** Last match index the x axis shows. */
  xMax: number;
}

export function winRateData(matches: readonly MatchSummary[], gyms: readonly GymSummary[], stopping: StoppingView, phase?: string): WinRateData {
  const sorted = [...matches].sort((a, b) => a.index - b.index);
  const points = sorted.map((m, i): WinRatePoint => {
    const prev = i > 0 ? sorted[i - 1]!.wDa : null;
    return {
      match: m.index,
      matchId: m.matchId,
      wDa: m.wDa,
      wCa: 1 - m.wDa,
      competencyGate: m.stop.competencyGate,
      stabilityGate: m.stop.stabilityGate,
      epsWindow: prev === null ? null : { lo: Math.max(0, prev - stopping.epsilon), hi: Math.min(1, prev + stopping.epsilon) },
      stop: m.stop.stop,
    };
  });
  const spans: GymSpan[] = gyms.map((g) => ({ afterMatch: g.afterMatch, role: g.role, label: `${g.role} gym · ${g.from}→${g.to}`, active: false }));
  const last = sorted.at(-1);
  if (phase === 'gym' && last?.next && !gyms.some((g) => g.afterMatch === last.index)) {
    spans.push({ afterMatch: last.index, role: last.next.role, label: `${last.next.role} gym · training`, active: true });
  }
  const xMax = Math.max(2, (last?.index ?? 0) + (last && !last.stop.stop ? 1 : 0));
  return { points, gyms: spans, tau: stopping.tauDa, epsilon: stopping.epsilon, xMax };
}
