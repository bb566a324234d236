/**
 * The Evaluation screen's counterpart-shift panel (core/arena/panel.ts, `sparring eval --panel`):
 * table rows in words and the mismatch gap as bars with their 95% intervals. Pure: formats what
 * the host computed and never re-derives an interval.
 */
import type { MeanInterval, PanelCell, PanelRow, RunPanel } from '../../../../core/contract/contract';
import { meanText } from '../../format';

export interface PanelTableRow {
  key: string;
  label: string;
  kind: string;
  episodes: string;
  routing: string;
  strictPass: string;
  meanReward: string;
  note: string;
  /** 'training' (the DA's own counterpart), 'member', or 'summary' (average, gap). */
  role: 'training' | 'member' | 'summary';
}

/** One bar of the gap chart: training − panel in points (rates). */
export interface GapBar {
  key: 'routing' | 'strictPass';
  label: string;
  value: number;
  ci: [number, number] | null;
  n: number;
}

const rate = (c: PanelCell) => `${(c.value * 100).toFixed(1)}%${c.ci ? ` [${Math.round(c.ci[0] * 100)}–${Math.round(c.ci[1] * 100)}]` : ''}`;
const meanOf = (m: MeanInterval, isRate: boolean) => {
  if (!m.n) return '–';
  const f = (v: number) => (isRate ? (v * 100).toFixed(1) : v.toFixed(2));
  return meanText(m, f);
};

function memberRow(r: PanelRow, role: 'training' | 'member'): PanelTableRow {
  return {
    key: `${role}:${r.counterpart.key}`,
    label: role === 'training' ? `training: ${r.counterpart.label}` : r.counterpart.label,
    kind: r.counterpart.kind,
    role,
    episodes: String(r.episodes),
    routing: rate(r.cells.routing),
    strictPass: rate(r.cells.strictPass),
    meanReward: r.cells.meanReward.value.toFixed(2),
    note: r.replay
      ? `replayed ${r.replay.replayedTurns} of ${r.replay.humanTurns} human turns; opening only in ${r.replay.openingOnly} of ${r.replay.episodes}`
      : '',
  };
}

export function panelTable(p: RunPanel): PanelTableRow[] {
  const s = p.summary;
  const rows: PanelTableRow[] = [];
  if (s.training) rows.push(memberRow(s.training, 'training'));
  for (const r of s.rows) rows.push(memberRow(r, 'member'));
  rows.push({
    key: 'average',
    label: `panel average (${s.rows.length} counterparts)`,
    kind: '',
    episodes: '',
    role: 'summary',
    note: '',
    routing: meanOf(s.average.routing, true),
    strictPass: meanOf(s.average.strictPass, true),
    meanReward: meanOf(s.average.meanReward, false),
  });
  if (s.gap) {
    rows.push({
      key: 'gap',
      label: 'mismatch gap (training − panel)',
      kind: '',
      episodes: '',
      role: 'summary',
      note: '',
      routing: meanOf(s.gap.routing, true),
      strictPass: meanOf(s.gap.strictPass, true),
      meanReward: meanOf(s.gap.meanReward, false),
    });
  }
  return rows;
}

export function gapBars(p: RunPanel): GapBar[] {
  const g = p.summary.gap;
  if (!g) return [];
  return (['routing', 'strictPass'] as const).flatMap((k) =>
    g[k].n ? [{ key: k, label: k === 'routing' ? 'routing' : 'strict PASS', value: g[k].mean, ci: g[k].ci, n: g[k].n }] : [],
  );
}
