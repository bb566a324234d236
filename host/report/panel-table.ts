/**
 * The panel evaluation as text (host/panel/panel-eval.ts, core/arena/panel.ts): one row per
 * counterpart with Wilson intervals over its episodes, the DA's training counterpart, the panel
 * average with its 95% t interval over counterparts, and the mismatch gap.
 */
import type { PanelRow, PanelSummary } from '../../core/arena/panel';
import type { PanelEvaluation } from '../panel/panel-eval';
import { table } from '../format/table';
import { rateWithInterval } from './heldout-rows';
import { fmt } from '../../core/stats/format';

function row(label: string, r: PanelRow): string[] {
  const replay = r.replay
    ? `replayed ${r.replay.replayedTurns} of ${r.replay.humanTurns} human turns; opening only in ${r.replay.openingOnly} of ${r.replay.episodes}`
    : '';
  return [
    label,
    r.counterpart.kind,
    String(r.episodes),
    rateWithInterval(r.cells.routing.value, r.episodes),
    rateWithInterval(r.cells.strictPass.value, r.episodes),
    r.cells.meanReward.value.toFixed(2),
    replay,
  ];
}

export const PANEL_HEADER = ['counterpart', 'kind', 'episodes', 'routing [95% CI]', 'strict PASS [95% CI]', 'mean reward', 'note'];

/** The table's rows: training counterpart, each member, the average and the gap (the CLI's and the HTML run report's). */
export function panelRows(s: PanelSummary): string[][] {
  const rows: string[][] = [];
  if (s.training) rows.push(row(`training: ${s.training.counterpart.label}`, s.training));
  for (const r of s.rows) rows.push(row(r.counterpart.label, r));
  rows.push([
    `panel average (${s.rows.length} counterparts)`,
    '',
    '',
    fmt(s.average.routing, true),
    fmt(s.average.strictPass, true),
    fmt(s.average.meanReward, false),
    '',
  ]);
  if (s.gap) rows.push(['mismatch gap (training − panel)', '', '', fmt(s.gap.routing, true), fmt(s.gap.strictPass, true), fmt(s.gap.meanReward, false), '']);
  return rows;
}

export function panelText(p: PanelEvaluation): string {
  const s = p.summary;
  const lines = [
    `panel evaluation of ${p.da}${p.daRun ? ` (trained in ${p.daRun})` : ''}: held-out scenarios, seeds ${p.protocol.seeds.join(',')}, ${p.protocol.episodesPerScenario} episode(s) per scenario per seed`,
    table(PANEL_HEADER, panelRows(s), ['l', 'l', 'r', 'r', 'r', 'r', 'l']),
    '',
    'Counterpart rows: rates in %, [95% Wilson interval] over the episodes. Average and gap: mean [95% Student-t interval] over counterparts' +
      ' (gap: training − counterpart per counterpart, the training score taken as fixed); rates in %/points.',
  ];
  if (s.rows.some((r) => r.counterpart.kind === 'human')) {
    lines.push(
      "Human: each person-played customer episode replayed in its own scenario and world; the human's utterances are used while the DA says what the recorded DA said, then the scripted CA speaks (opening only = evaluated on the human's opening).",
    );
  }
  if (!s.training) lines.push('No training counterpart (the DA was not trained in a run of this lab): no mismatch gap.');
  for (const f of p.failed) lines.push(`not evaluated: ${f.counterpart.label}: ${f.error}`);
  lines.push(`${p.computed} counterpart evaluation(s) computed, ${p.reused} reused from the lab.`);
  return lines.join('\n') + '\n';
}
