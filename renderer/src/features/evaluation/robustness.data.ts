/** MADS robustness report (eval/mads) as table rows and chart bars: L-2 and L-1 per group. */
import type { MadsEvaluation, MadsGroup } from '../../../../core/contract/contract';

export interface RobustnessRow {
  key: string;
  label: string;
  episodes: number;
  l2: number;
  l2Complete: number;
  /** L-1 means, or null when no episode of the group has reference actions. */
  l1: { actionTypeRecall: number; toolF1: number; paramExactMatch: number; responseSimilarity: number; episodes: number } | null;
}

export interface RobustnessView {
  overall: RobustnessRow;
  byComplexity: RobustnessRow[];
  byAdversity: RobustnessRow[];
}

const COMPLEXITY_ORDER = ['normal', 'unhappy', 'impossible'];
const label = (k: string) => (k === 'none' ? 'no adversity fired' : k.replaceAll('_', ' '));

function row(key: string, text: string, g: MadsGroup): RobustnessRow {
  return { key, label: text, episodes: g.episodes, l2: g.l2, l2Complete: g.l2Complete, l1: g.l1 };
}

/** Groups in a stable order: complexity normal → unhappy → impossible; adversities by name, "none" last. */
export function robustnessView(r: MadsEvaluation): RobustnessView {
  const entries = <T extends string>(o: Partial<Record<T, MadsGroup>>) => Object.entries(o) as [T, MadsGroup][];
  const rank = (k: string) => (COMPLEXITY_ORDER.includes(k) ? COMPLEXITY_ORDER.indexOf(k) : COMPLEXITY_ORDER.length);
  return {
    overall: row('all', 'all', r.overall),
    byComplexity: entries(r.byComplexity)
      .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
      .map(([k, g]) => row(`complexity:${k}`, k, g)),
    byAdversity: entries(r.byAdversity)
      .sort(([a], [b]) => (a === 'none' ? 1 : b === 'none' ? -1 : a.localeCompare(b)))
      .map(([k, g]) => row(`adversity:${k}`, label(k), g)),
  };
}

export interface RobustnessBar {
  key: string;
  label: string;
  group: 'complexity' | 'adversity';
  value: number;
  episodes: number;
}

/** L-2 success (mean share of turns before the first error) per complexity and per adversity. */
export function robustnessBars(v: RobustnessView): RobustnessBar[] {
  return [
    ...v.byComplexity.map((r): RobustnessBar => ({ key: r.key, label: r.label, group: 'complexity', value: r.l2, episodes: r.episodes })),
    ...v.byAdversity.map((r): RobustnessBar => ({ key: r.key, label: r.label, group: 'adversity', value: r.l2, episodes: r.episodes })),
  ];
}
