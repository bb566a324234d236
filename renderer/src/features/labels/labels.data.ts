/** Data shaping for the Annotate and Judge audit screens (pure; the charts and components only draw). */
import type { AuditReport, TacticReport } from '../../../../core/contract/contract';

/** One stacked bar: a match's label shares, in the label set's order. */
export interface TacticBar {
  matchId: string;
  caSpec: string;
  items: number;
  segments: { label: string; share: number; start: number }[];
}

/** Match ids in the order they were played: M2 before M10 (a plain string sort puts M10 first). */
export function byMatchOrder(a: string, b: string): number {
  const na = /\d+/.exec(a);
  const nb = /\d+/.exec(b);
  const pa = a.slice(0, na?.index ?? a.length);
  const pb = b.slice(0, nb?.index ?? b.length);
  if (pa !== pb || !na || !nb) return a < b ? -1 : a > b ? 1 : 0;
  return Number(na[0]) - Number(nb[0]) || (a < b ? -1 : a > b ? 1 : 0);
}

/** A bar's row label, as the chart writes it beside the bar. */
export function tacticRowLabel(b: Pick<TacticBar, 'matchId' | 'caSpec' | 'items'>): string {
  return `${b.matchId} · ${b.caSpec} (n=${b.items})`;
}

export function tacticBars(r: TacticReport): TacticBar[] {
  return [...r.perMatch]
    .sort((a, b) => byMatchOrder(a.matchId, b.matchId))
    .map((m) => {
      let start = 0;
      const segments = r.labels.map((label) => {
        const share = m.shares[label] ?? 0;
        const s = { label, share, start };
        start += share;
        return s;
      });
      return { matchId: m.matchId, caSpec: m.caSpec, items: m.items, segments };
    });
}

export type MeasureKey = 'entityDensity' | 'tokens' | 'decoyCues';
export const MEASURES: { key: MeasureKey; label: string }[] = [
  { key: 'entityDensity', label: 'entity density' },
  { key: 'tokens', label: 'opening length (tokens)' },
  { key: 'decoyCues', label: 'decoy cues' },
];

/** One point per item with a consensus label, and each label's mean; labels in the set's order. */
export interface MeasureStrip {
  labels: string[];
  points: { label: string; value: number; pos: number }[];
  means: { label: string; mean: number; n: number }[];
}

export function measureStrip(r: TacticReport, key: MeasureKey): MeasureStrip {
  const points = r.items.filter((i) => i.consensus !== null).map((i) => ({ label: i.consensus!, value: i[key], pos: i.pos }));
  const means = r.labels.map((label) => {
    const v = points.filter((p) => p.label === label).map((p) => p.value);
    return { label, mean: v.length ? v.reduce((a, b) => a + b, 0) / v.length : Number.NaN, n: v.length };
  });
  return { labels: r.labels, points, means };
}

/** κ, α or ρ for display: three decimals, "—" when undefined (NaN or null over the wire). */
export function fmtStat(x: number | null | undefined): string {
  return x === null || x === undefined || Number.isNaN(x) ? '—' : x.toFixed(3);
}

/** Landis & Koch's words for a κ, so the figure reads at a glance. */
export function kappaWords(k: number | null | undefined): string {
  if (k === null || k === undefined || Number.isNaN(k)) return 'undefined';
  if (k < 0) return 'worse than chance';
  if (k <= 0.2) return 'slight';
  if (k <= 0.4) return 'fair';
  if (k <= 0.6) return 'moderate';
  if (k <= 0.8) return 'substantial';
  return 'almost perfect';
}

/** The per-match verdict line of the judge audit. */
export function impactWords(m: AuditReport['perMatch'][number], epsilon: number): string {
  if (m.audited === 0) return 'no episode of this match audited yet: nothing to compare';
  if (m.wJudge === null || m.wHuman === null) return 'no CA-winnable episodes';
  const d = m.wHuman - m.wJudge;
  const moved = m.exceedsEpsilon ? `moves W by ${d >= 0 ? '+' : ''}${d.toFixed(3)} (> ε = ${epsilon})` : `moves W by ${Math.abs(d).toFixed(3)} (≤ ε)`;
  const flip = m.flips
    ? `flips the stopping decision (${m.stopJudge!.stop ? 'stop' : 'continue'} → ${m.stopHuman!.stop ? 'stop' : 'continue'})`
    : 'same stopping decision';
  return `${moved}; ${flip}`;
}

/**
 * The per-match badge of the judge audit: a match with no audited episode has no evidence either
 * way, so it neither "holds" nor "changes".
 */
export function impactBadge(m: AuditReport['perMatch'][number]): { tone: 'ok' | 'warn' | 'neutral'; text: string } {
  if (m.audited === 0) return { tone: 'neutral', text: 'not audited' };
  return m.exceedsEpsilon || m.flips ? { tone: 'warn', text: 'changes' } : { tone: 'ok', text: 'holds' };
}

/** The audit verdict's fields still to choose, in the form's order, named as the form names them. */
export function missingAuditFields(v: { resolved: boolean | null; tier: number | null; hallucination: boolean | null }): string[] {
  return [
    ...(v.resolved === null ? ['resolved (Y / N)'] : []),
    ...(v.tier === null ? ['quality tier (1–4)'] : []),
    ...(v.hallucination === null ? ['hallucination (H)'] : []),
  ];
}

/**
 * The H key: the first press answers "no" (most episodes have no hallucination), the next ones
 * switch between yes and no, so a keyboard user reaches either answer and sees which one is set.
 */
export function nextHallucination(h: boolean | null): boolean {
  return h === null ? false : !h;
}
