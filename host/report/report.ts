/**
 * A self-contained HTML report of a run (`sparring report RUN --out report.html`): W_DA and W_CA
 * per match with the τ_DA line and the gym phases marked, per-scenario win rates of every match,
 * the CA's tactic measures, and the held-out comparison of the DA checkpoints. Plain inline SVG,
 * no scripts and no external files, so it opens anywhere and can be attached to a paper or issue.
 */
import { referenceEvaluations } from '../coevolution/actors';
import type { CheckpointEvaluation } from '../coevolution/actors';
import { policyLabel } from '../format/policy';
import { pct } from '../format/table';
import { HELDOUT_HEADER, heldoutRows } from './heldout-rows';
import { PANEL_HEADER, panelRows } from './panel-table';
import type { GrpoSettingsView, RunDetail } from '../../core/contract/contract';
import { hostCpuLine } from '../../core/contract/device';
import { judgeSpecOf } from '../../core/coevolution/run-config';
import type { MatchRecord } from '../../core/store/port';

export const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** W_DA / W_CA per match, τ_DA line, gym phases shaded between matches and labelled. */
export function winRateChart(run: RunDetail, tauDa: number): string {
  const ms = run.matchSummaries;
  const W = 640,
    H = 280,
    L = 48,
    R = 16,
    T = 20,
    B = 40;
  const n = Math.max(ms.length, 1);
  const x = (i: number) => L + ((i + 0.5) / n) * (W - L - R);
  const y = (v: number) => T + (1 - v) * (H - T - B);
  const parts: string[] = [];
  for (const g of run.gyms) {
    const i = g.afterMatch - 1; // between match i and i+1
    const x0 = x(i),
      x1 = x(i + 1);
    parts.push(`<rect x="${x0}" y="${T}" width="${x1 - x0}" height="${H - T - B}" fill="${g.role === 'DA' ? '#dbeafe' : '#fee2e2'}"/>`);
    parts.push(`<text x="${(x0 + x1) / 2}" y="${H - B - 6}" font-size="11" text-anchor="middle" fill="#475569">${g.role} gym → ${esc(g.to)}</text>`);
  }
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(
      `<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" stroke="#e2e8f0"/><text x="${L - 6}" y="${y(v) + 4}" font-size="11" text-anchor="end" fill="#64748b">${v * 100}%</text>`,
    );
  }
  parts.push(
    `<line x1="${L}" x2="${W - R}" y1="${y(tauDa)}" y2="${y(tauDa)}" stroke="#16a34a" stroke-dasharray="5 4"/><text x="${W - R}" y="${y(tauDa) - 5}" font-size="11" text-anchor="end" fill="#16a34a">τ_DA = ${tauDa.toFixed(2)}</text>`,
  );
  const line = (f: (i: number) => number, color: string, dash = '') =>
    `<polyline fill="none" stroke="${color}" stroke-width="2" ${dash ? `stroke-dasharray="${dash}"` : ''} points="${ms.map((_, i) => `${x(i)},${y(f(i))}`).join(' ')}"/>` +
    ms.map((_, i) => `<circle cx="${x(i)}" cy="${y(f(i))}" r="4" fill="#fff" stroke="${color}" stroke-width="2"/>`).join('');
  parts.push(
    line((i) => ms[i]!.wDa, '#2563eb'),
    line((i) => 1 - ms[i]!.wDa, '#ea580c', '6 4'),
  );
  ms.forEach((m, i) => parts.push(`<text x="${x(i)}" y="${H - B + 16}" font-size="11" text-anchor="middle" fill="#334155">M${m.index}</text>`));
  const stop = ms.at(-1)?.stop;
  if (stop?.stop)
    parts.push(`<text x="${x(ms.length - 1)}" y="${T + 12}" font-size="11" text-anchor="middle" fill="#0f172a">stop: ${esc(stop.reason ?? '')}</text>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="W_DA and W_CA per match">${parts.join('')}
<g font-size="11"><rect x="${L + 8}" y="${T + 4}" width="10" height="3" fill="#2563eb"/><text x="${L + 22}" y="${T + 9}">W_DA</text><rect x="${L + 70}" y="${T + 4}" width="10" height="3" fill="#ea580c"/><text x="${L + 84}" y="${T + 9}">W_CA</text></g></svg>`;
}

/** Horizontal bars: DA win rate per scenario of one match (fraud reference scenarios in purple). */
export function scenarioChart(m: MatchRecord, tauDa: number): string {
  const rows = m.perScenario;
  const W = 640,
    rowH = 20,
    L = 200,
    R = 70,
    T = 8;
  const H = T * 2 + rows.length * rowH;
  const x = (v: number) => L + v * (W - L - R);
  const bars = rows.map((s, i) => {
    const yy = T + i * rowH;
    return (
      `<text x="${L - 8}" y="${yy + 14}" font-size="12" text-anchor="end" fill="#334155">${esc(s.scenarioId)}${s.fraudReference ? ' ⚑' : ''}</text>` +
      `<rect x="${L}" y="${yy + 3}" width="${x(1) - L}" height="${rowH - 6}" fill="#f1f5f9"/>` +
      `<rect x="${L}" y="${yy + 3}" width="${x(s.daWinRate) - L}" height="${rowH - 6}" fill="${s.fraudReference ? '#7c3aed' : '#2563eb'}"/>` +
      `<text x="${x(1) + 6}" y="${yy + 14}" font-size="12" fill="#334155">${s.daWins}/${s.episodes}</text>`
    );
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="DA win rate per scenario of ${esc(m.id)}">${bars.join('')}<line x1="${x(tauDa)}" x2="${x(tauDa)}" y1="0" y2="${H}" stroke="#16a34a" stroke-dasharray="4 3"/></svg>`;
}

/** An HTML table, cells escaped (the run and study reports'). */
export function htmlTable(header: string[], rows: (string | number)[][]): string {
  return `<table><thead><tr>${header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${esc(String(c))}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

/** Why a gym ended early (its trust region) or kept its start (it diverged), one line per such gym. */
function gymNotes(run: RunDetail): string {
  const noted = run.gyms.filter((g) => g.note);
  if (!noted.length) return '';
  return `<ul class="gym-notes">${noted.map((g) => `<li><b>${esc(g.to)}</b> (${g.role} gym after match ${g.afterMatch}): ${esc(g.note!)}</li>`).join('')}</ul>`;
}

/** The reports' shared stylesheet. */
export const REPORT_STYLE = `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#0f172a;max-width:980px;margin:32px auto;padding:0 20px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px}h3{font-size:14px;margin:18px 0 4px;color:#334155}
.meta{color:#64748b}.verdict{background:#f8fafc;border:1px solid #e2e8f0;border-radius:6px;padding:8px 12px}
table{border-collapse:collapse;margin:8px 0}th,td{border-bottom:1px solid #e2e8f0;padding:4px 10px;text-align:right}th:first-child,td:first-child{text-align:left}
th{background:#f8fafc;font-weight:600}`;

/**
 * What the run ran with, as the host resolves its config (core/coevolution/run-settings.ts): one
 * column per GRPO phase, rows named by the run config's own field names, then the gym mix and the
 * reward weights. Nothing when the stored config no longer parses.
 */
function settingsSection(run: RunDetail): string {
  const s = run.settings;
  if (!s) return '';
  const keys = Object.keys(s.grpo[0] ?? {}).filter((k) => k !== 'phase') as (keyof GrpoSettingsView)[];
  const cell = (v: string | number | boolean | null) => (v === null ? '–' : typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v));
  const weights = (w: Record<string, number>) =>
    Object.entries(w)
      .map(([k, v]) => `${k} ${v}`)
      .join(' · ');
  return `<h2>Settings</h2>
<p class="meta">As the runner resolves the run's config, every default spelled out (knob writes, if any, changed K, lr, β and ε of later gym steps).</p>
${htmlTable(
  ['GRPO', ...s.grpo.map((g) => g.phase)],
  keys.map((k) => [k, ...s.grpo.map((g) => cell(g[k]))]),
)}
<p class="meta">Gym data ${Math.round(s.failureShare * 100)}:${Math.round((1 - s.failureShare) * 100)} failure:success, ${s.gymMatches === 1 ? 'the latest match' : `the latest ${s.gymMatches} matches`}${s.daFailure === 'unresolved' ? ' (the DA’s failures: lost or unresolved)' : ''}${s.caDecisions === 'openings' ? '; the CA’s gyms train on its openings only' : ''}${s.daOtherIntents > 0 ? `; each DA gym also plays ${s.daOtherIntents} episodes per intent beyond the arena` : ''}. r_DA: ${esc(weights(s.daReward))}. r_CA: ${esc(weights(s.caReward))}.</p>`;
}

/** The held-out table, against the scripted CA too, and the counterpart panel: a run's held-out figures. */
function heldoutSections(run: RunDetail, evals: readonly CheckpointEvaluation[]): string {
  const heldout = heldoutRows(evals);
  const reference = heldoutRows(referenceEvaluations(evals));
  return `${heldout.length ? `<p class="meta">Against the run's latest CA, ${esc(evals[0]!.ca)}.</p>${htmlTable(HELDOUT_HEADER, heldout)}<p class="meta">[95% CI]: the Wilson interval over the ${evals[0]!.heldout.episodes} held-out episodes.</p>` : '<p class="meta">This run has no held-out evaluation yet.</p>'}
${reference.length ? `<h3>Against the scripted CA</h3><p class="meta">A fixed opponent, so DA checkpoints of different runs compare directly.</p>${htmlTable(HELDOUT_HEADER, reference)}` : ''}
${run.panel ? `<h2>Counterpart shift: ${esc(run.panel.da)} against its panel</h2><p class="meta">Held-out scenarios (${esc(run.panel.protocol)}) against counterparts that share nothing with the DA's training; rates with their 95% Wilson interval over the episodes, the average and the mismatch gap (training counterpart − panel) with their 95% t interval over counterparts, rates in %/points.</p>${htmlTable(PANEL_HEADER, panelRows(run.panel.summary))}` : ''}`;
}

/** What an arena-only report says in place of the held-out figures. */
function heldoutLeftOut(stored: boolean): string {
  return `<p class="meta" data-testid="heldout-left-out">Left out (arena only, for choosing settings): ${
    stored
      ? 'the run stored its held-out evaluation (and any panel); a report without --arena-only shows them, not to choose settings on.'
      : 'this run has no held-out evaluation yet.'
  }</p>`;
}

/**
 * `arenaOnly`: for choosing settings on the arena (`report R --arena-only`, `run --arena-only`): no
 * held-out or panel figure, only a line saying they are stored and left out.
 */
export function renderReport(run: RunDetail, matches: readonly MatchRecord[], opts: { arenaOnly?: boolean } = {}): string {
  const { tauDa } = run.stopping;
  const evals = (run.evaluation as { checkpoints?: CheckpointEvaluation[] } | null)?.checkpoints ?? [];
  const ms = run.matchSummaries;
  const matchRows = ms.map((m) => [
    `M${m.index}`,
    m.da,
    m.ca,
    pct(m.wDa),
    pct(1 - m.wDa),
    pct(m.fraudRate),
    m.next ? `${m.next.role} gym` : `stop (${m.stop.reason})`,
    m.tactics.meanEntityDensity.toFixed(3),
    m.tactics.meanTokens.toFixed(1),
    pct(m.tactics.decoyRate),
    pct(m.tactics.hedgeRate),
  ]);
  const perMatch = matches
    .map(
      (m) =>
        `<h3>${esc(m.id)}: ${esc(policyLabel(m.daSpec, m.daCheckpoint))} vs ${esc(policyLabel(m.caSpec, m.caCheckpoint))} — W_DA ${pct(m.wDa)}, fraud ${pct(m.fraudRate)}</h3>${scenarioChart(m, tauDa)}`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sparring run ${esc(run.id)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${REPORT_STYLE}</style></head><body>
<h1>Sparring run ${esc(run.id)}</h1>
<p class="meta">preset ${esc(run.preset || 'custom')} · seed ${run.seed} · ${esc(run.status)} (${esc(run.phase)}) · created ${esc(run.createdAt)} · device ${run.device ? `${esc(run.device.provider)} (${esc(run.device.reason)}${run.device.host ? `; ${esc(hostCpuLine(run.device.host))}` : ''})` : 'cpu (not recorded)'} · judge ${esc(judgeSpecOf(run.configJson))}${judgeSpecOf(run.configJson) === 'rule' ? ' (builtin)' : ' (an LLM endpoint)'}</p>
${ms.length ? `<p class="verdict"><b>Stopping rule:</b> ${esc(ms.at(-1)!.stop.explanation)}</p>` : ''}
<h2>W_DA per match</h2>
${winRateChart(run, tauDa)}
<p class="meta">Shaded: isolation gyms between matches (blue: the DA trained, red: the CA), labelled with the checkpoint they produced.</p>
${gymNotes(run)}
<h2>Matches and the CA's tactic measures</h2>
${htmlTable(['match', 'DA', 'CA', 'W_DA', 'W_CA', 'fraud ref.', 'next', 'entity density', 'opening tokens', 'decoy rate', 'hedge rate'], matchRows)}
<h2>Held-out evaluation (RL-ADA Table 4)</h2>
${opts.arenaOnly ? heldoutLeftOut(evals.length > 0) : heldoutSections(run, evals)}
${settingsSection(run)}
<h2>Per-scenario DA win rates</h2>
<p class="meta">⚑ fraud-escalation reference scenario (tracked apart from W_DA). The dashed line is τ_DA.</p>
${perMatch}
</body></html>
`;
}
