/**
 * A self-contained HTML report of a study (`sparring report --study S --out FILE.html`): W_DA per
 * match as a mean line with its 95% band per arm, the held-out tables with intervals and the
 * paired differences against `full`, the CA's tactic measures per match with bands, each arm's CA
 * policy first match → last (when read), and per-seed small multiples. Inline SVG in the style of
 * the run report (report.ts), no scripts.
 */
import { arenaOnlySummary, heldoutEpisodesNote, isHeldoutMeasure, MEASURES, TACTIC_FIELDS } from '../../core/coevolution/study-summary';
import type { ArmSummary, StudyRunData, StudySummary } from '../../core/coevolution/study-summary';
import { estimateScenarioView, estimateView } from '../../core/coevolution/study-estimate';
import type { EstimateSlice, EstimateTables } from '../../core/coevolution/study-estimate';
import type { MeanInterval } from '../../core/stats/intervals';
import type { CaPolicyShiftRow } from '../../core/arena/ca-policy';
import type { StudyCaPolicyArm } from '../../core/contract/contract';
import type { FeatureSplit, RCaTerms } from '../../core/labels/tactic-evidence';
import { esc, htmlTable, REPORT_STYLE } from './report';
import { fmt, signedFixed } from '../../core/stats/format';

/** One colour per arm, in the study's order. */
export const ARM_COLOURS = ['#2563eb', '#ea580c', '#16a34a', '#7c3aed', '#db2777', '#0891b2', '#ca8a04', '#475569'];

export interface BandSeries {
  name: string;
  colour: string;
  points: (MeanInterval & { match: number })[];
}

/**
 * Mean line per series with its 95% interval as a shaded band, x = match. `rate`: the y axis is
 * 0–100%; otherwise it spans the data.
 */
export function bandChart(
  series: readonly BandSeries[],
  opts: { title: string; rate: boolean; width?: number; height?: number; tauDa?: number; legend?: boolean },
): string {
  const W = opts.width ?? 640,
    H = opts.height ?? 260,
    L = 52,
    R = 16,
    T = 22,
    B = 34;
  const n = Math.max(1, ...series.map((s) => s.points.length));
  const vals = series.flatMap((s) => s.points.flatMap((p) => (p.n ? [p.mean, ...(p.ci ?? [])] : [])));
  let lo = opts.rate ? 0 : Math.min(...vals, 0);
  let hi = opts.rate ? 1 : Math.max(...vals, 1e-9);
  if (!opts.rate && hi - lo < 1e-9) hi = lo + 1;
  if (!opts.rate) {
    const pad = (hi - lo) * 0.08;
    lo -= pad;
    hi += pad;
  }
  const x = (i: number) => L + (n === 1 ? 0.5 : i / (n - 1)) * (W - L - R);
  const y = (v: number) => T + (1 - (Math.max(lo, Math.min(hi, v)) - lo) / (hi - lo)) * (H - T - B);
  const parts: string[] = [];
  for (let k = 0; k <= 4; k++) {
    const v = lo + ((hi - lo) * k) / 4;
    parts.push(
      `<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" stroke="#e2e8f0"/><text x="${L - 6}" y="${y(v) + 4}" font-size="11" text-anchor="end" fill="#64748b">${opts.rate ? `${Math.round(v * 100)}%` : v.toFixed(v === 0 || Math.abs(hi - lo) > 10 ? 0 : 3)}</text>`,
    );
  }
  if (opts.tauDa !== undefined)
    parts.push(
      `<line x1="${L}" x2="${W - R}" y1="${y(opts.tauDa)}" y2="${y(opts.tauDa)}" stroke="#16a34a" stroke-dasharray="5 4"/><text x="${W - R}" y="${y(opts.tauDa) - 5}" font-size="11" text-anchor="end" fill="#16a34a">τ_DA = ${opts.tauDa.toFixed(2)}</text>`,
    );
  for (let i = 0; i < n; i++) parts.push(`<text x="${x(i)}" y="${H - B + 16}" font-size="11" text-anchor="middle" fill="#334155">M${i + 1}</text>`);
  for (const s of series) {
    const pts = s.points.map((p, i) => ({ ...p, i })).filter((p) => p.n > 0);
    const band = pts.filter((p) => p.ci);
    if (band.length > 1) {
      const upper = band.map((p) => `${x(p.i)},${y(p.ci![1])}`);
      const lower = band.map((p) => `${x(p.i)},${y(p.ci![0])}`).reverse();
      parts.push(`<polygon points="${[...upper, ...lower].join(' ')}" fill="${s.colour}" fill-opacity="0.15" stroke="none"/>`);
    } else {
      for (const p of band)
        parts.push(`<line x1="${x(p.i)}" x2="${x(p.i)}" y1="${y(p.ci![0])}" y2="${y(p.ci![1])}" stroke="${s.colour}" stroke-opacity="0.4" stroke-width="6"/>`);
    }
    parts.push(`<polyline fill="none" stroke="${s.colour}" stroke-width="2" points="${pts.map((p) => `${x(p.i)},${y(p.mean)}`).join(' ')}"/>`);
    parts.push(
      pts
        .map(
          (p) =>
            `<circle cx="${x(p.i)}" cy="${y(p.mean)}" r="3.5" fill="#fff" stroke="${s.colour}" stroke-width="2"><title>${esc(s.name)} M${p.i + 1}: ${fmt(p, opts.rate)} (n=${p.n})</title></circle>`,
        )
        .join(''),
    );
  }
  const legend =
    opts.legend === false
      ? ''
      : `<g font-size="11">${series.map((s, i) => `<rect x="${L + 8 + i * 120}" y="${T - 14}" width="10" height="3" fill="${s.colour}"/><text x="${L + 22 + i * 120}" y="${T - 9}">${esc(s.name)}</text>`).join('')}</g>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(opts.title)}">${parts.join('')}${legend}</svg>`;
}

/**
 * One head of the CA's choice, first match → last, per arm (`sparring study ca-policy`): a row per
 * value, an arm's dumbbell in it from the first match's mean probability (hollow) to the last's
 * (filled) with the last's 95% interval as a bar; x is the probability, 0–1.
 */
export function caPolicyHeadChart(head: string, arms: readonly { arm: string; colour: string; rows: readonly CaPolicyShiftRow[] }[]): string {
  const values = [...new Set(arms.flatMap((a) => a.rows.filter((r) => r.head === head).map((r) => r.value)))];
  const W = 300,
    L = 118,
    R = 14,
    T = 8,
    B = 24,
    band = 12 + 8 * arms.length;
  const H = T + B + band * values.length;
  const x = (v: number) => L + Math.max(0, Math.min(1, v)) * (W - L - R);
  const parts: string[] = [];
  for (const v of [0, 0.5, 1])
    parts.push(
      `<line x1="${x(v)}" x2="${x(v)}" y1="${T}" y2="${H - B}" stroke="#e2e8f0"/><text x="${x(v)}" y="${H - B + 14}" font-size="10" text-anchor="middle" fill="#64748b">${v}</text>`,
    );
  values.forEach((value, vi) => {
    const top = T + vi * band;
    parts.push(`<text x="${L - 6}" y="${top + band / 2 + 4}" font-size="11" text-anchor="end" fill="#334155">${esc(value === 'null' ? 'none' : value)}</text>`);
    arms.forEach((a, ai) => {
      const r = a.rows.find((x) => x.head === head && x.value === value);
      if (!r || !r.first.n) return;
      const y = top + 6 + ai * 8 + 4;
      const tip = `<title>${esc(`${a.arm} ${head} = ${value}: ${fmt(r.first, false)} → ${fmt(r.last, false)}, change ${fmt(r.change, false)}, up ${r.up} / down ${r.down} of ${r.change.n}`)}</title>`;
      if (r.last.ci)
        parts.push(`<line x1="${x(r.last.ci[0])}" x2="${x(r.last.ci[1])}" y1="${y}" y2="${y}" stroke="${a.colour}" stroke-opacity="0.35" stroke-width="5"/>`);
      parts.push(`<line x1="${x(r.first.mean)}" x2="${x(r.last.mean)}" y1="${y}" y2="${y}" stroke="${a.colour}" stroke-width="1.5"/>`);
      parts.push(`<circle cx="${x(r.first.mean)}" cy="${y}" r="3" fill="#fff" stroke="${a.colour}" stroke-width="1.5">${tip}</circle>`);
      parts.push(`<circle cx="${x(r.last.mean)}" cy="${y}" r="3.5" fill="${a.colour}">${tip}</circle>`);
    });
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(`the CA's ${head}, first match → last`)}">${parts.join('')}</svg>`;
}

/** An arm's CA policy, first match → last, as one table for `study ca-policy` and the report. */
export function caPolicyShiftView(a: StudyCaPolicyArm): { header: string[]; rows: string[][] } {
  return {
    header: ['head', 'value', 'first match (CA0)', 'last match', 'last − first', 'seeds up / down'],
    rows: a.rows.map((r, i) => [
      i === 0 || a.rows[i - 1]!.head !== r.head ? r.head : '',
      r.value === 'null' ? 'none' : r.value,
      fmt(r.first, false),
      fmt(r.last, false),
      fmt(r.change, false),
      `${r.up} / ${r.down} of ${r.change.n}`,
    ]),
  };
}

/** The report's section on the CA's policy: a chart per head over every arm, then each arm's table. */
function caPolicySection(arms: readonly StudyCaPolicyArm[], colour: (arm: string) => string): string {
  const withColour = arms.map((a) => ({ ...a, colour: colour(a.arm) }));
  const heads = [...new Set(arms.flatMap((a) => a.rows.map((r) => r.head)))];
  const charts = heads.map((h) => `<div class="cell small"><h3>${esc(h)}</h3>${caPolicyHeadChart(h, withColour)}</div>`).join('');
  const tables = arms.map((a) => {
    const v = caPolicyShiftView(a);
    return `<h3>${esc(a.arm)} (${a.seeds.length} seed${a.seeds.length === 1 ? '' : 's'})</h3>${htmlTable(v.header, v.rows)}`;
  });
  const legend = withColour.map((a) => `<b style="color:${a.colour}">● ${esc(a.arm)}</b>`).join(' ');
  return `<p class="meta">Per head of the CA's choice and value, the mean probability over a match's openings: hollow, the first match (CA0); filled, the last, with its 95% interval over seeds as a bar. Arena openings only. ${legend}</p><div class="grid">${charts}</div>${tables.join('\n')}`;
}

export interface StudyReportInput {
  id: string;
  preset: string;
  arms: readonly string[];
  seeds: readonly number[];
  status: string;
  tauDa: number;
  runs: readonly StudyRunData[];
  summary: StudySummary;
  /** Each custom arm with its overlay on the study's base. */
  customArms?: { arm: string; overlay: Record<string, unknown> }[];
  /** The arena-only estimates `study estimate` stored, per slice the CA spoke. */
  arenaEstimate?: Record<EstimateSlice, EstimateTables | null>;
  /** The same on the intents beyond the arena (`study estimate --scenarios other-intents`). */
  otherIntentsEstimate?: Record<EstimateSlice, EstimateTables | null>;
  /**
   * No held-out or panel figure (`arenaOnlySummary`; a study made with `--arena-only` unless the
   * report asks for them with `--heldout`): for choosing settings on the arena.
   */
  arenaOnly?: boolean;
  /** Each arm's CA, first match → last (`study ca-policy`; `report --study S --ca-policy`). Absent: not read. */
  caPolicy?: readonly StudyCaPolicyArm[];
}

const FIVE = ['routing', 'strictPass', 'fail', 'meanReward', 'lookupFirst'];

const share = (x: { tactic: string; share: number }[]) =>
  x
    .slice(0, 4)
    .map((t) => `${t.tactic} ${Math.round(t.share * 100)}%`)
    .join(', ');
const caWin = (v: number | null, n: number) => (v === null ? '–' : `${Math.round(v * 100)}% (n=${n})`);

/**
 * Which tactic an arm's CA converged to, in words and tables both outputs share: the headline, the
 * tactic shares in the first and the last match, example openings, and the CA's win rate with and
 * without each feature of an opening in the last match (the evidence for what reward pressure favours),
 * and in the first match (what paid against DA0).
 */
export function tacticConvergenceView(
  a: ArmSummary,
): { headline: string; rows: (string | number)[][]; examples: string[]; splits: string[][]; firstSplits: string[][] } | null {
  const t = a.tactic;
  if (!t) return null;
  const c = t.converged;
  return {
    headline:
      a.measures.caGyms?.mean === 0
        ? `${a.arm}: the CA never trained in this arm (CA0 throughout); its openings are CA0's`
        : c
          ? `${a.arm}: the CA converged to "${c.tactic}" (${Math.round(c.share * 100)}% of last-match openings; the dominant tactic of ${t.seedsAgreeing.k} of ${t.seedsAgreeing.n} seeds)`
          : `${a.arm}: no openings`,
    rows: [
      ['first match (CA0)', share(t.first)],
      ['last match (final CA)', share(t.last)],
    ],
    examples: c?.examples ?? [],
    splits: splitRows(t.splits),
    firstSplits: splitRows(t.firstSplits),
  };
}

function splitRows(splits: readonly FeatureSplit[]): string[][] {
  return splits.map((sp) => [
    sp.feature,
    caWin(sp.withCaWin, sp.withN),
    caWin(sp.withoutCaWin, sp.withoutN),
    sp.withinToolGap === null ? '–' : `${sp.withinToolGap >= 0 ? '+' : '−'}${Math.abs(Math.round(sp.withinToolGap * 100))}`,
    rCa(sp.withRCa),
    rCa(sp.withoutRCa),
    termGaps(sp.withRCa, sp.withoutRCa),
  ]);
}

/** The header of `tacticConvergenceView`'s splits, shared by `study show` and the report. */
export const SPLIT_HEADER = [
  'feature of the opening',
  'CA win with',
  'CA win without',
  'gap within tool (points)',
  'r_CA with',
  'r_CA without',
  'with − without: format / realism / conceal / inverse-DA',
];

const rCa = (t: RCaTerms | null) => (t === null ? '–' : t.total.toFixed(2));
const signed2 = (x: number) => signedFixed(x, 2);
/** Each r_CA term's mean with the feature minus without it: which term rewards or costs the feature. */
function termGaps(w: RCaTerms | null, wo: RCaTerms | null): string {
  if (w === null || wo === null) return '–';
  return (['format', 'realism', 'conceal', 'invDa'] as const).map((k) => signed2(w[k] - wo[k])).join(' / ');
}

/** k of n seeds with its Wilson interval: "7/10 [40–89%]". */
function seedCount(c: { k: number; n: number; ci: [number, number] | null }): string {
  return `${c.k}/${c.n}${c.ci ? ` [${Math.round(c.ci[0] * 100)}–${Math.round(c.ci[1] * 100)}%]` : ''}`;
}

/** The gyms and the shape of W_DA per arm, the one table `study show` and the report print. */
export function shapeView(arms: readonly ArmSummary[]): { header: string[]; rows: string[][] } {
  return {
    header: ['arm', 'matches', 'DA gyms', 'CA gyms', 'DA trained', 'W_DA non-monotonic', 'ΔW_DA after a CA gym', 'after a DA gym'],
    rows: arms.map((a) => [
      a.arm,
      fmt(a.measures.matches!, false),
      fmt(a.measures.daGyms!, false),
      fmt(a.measures.caGyms!, false),
      seedCount(a.daTrained),
      seedCount(a.nonMonotonic),
      fmt(a.measures.wDaAfterCaGym!, true),
      fmt(a.measures.wDaAfterDaGym!, true),
    ]),
  };
}

/**
 * Held-out routing per scenario (ArmSummary.heldoutScenarios): DA0 → final DA of the first arm and
 * every arm's final − DA0, a row per scenario; null when no evaluation carried per-scenario figures.
 */
export function heldoutScenarioView(arms: readonly ArmSummary[]): { title: string; header: string[]; rows: string[][] } | null {
  const ids = [...new Set(arms.flatMap((a) => a.heldoutScenarios.map((h) => h.scenarioId)))];
  const first = arms[0];
  if (!ids.length || !first) return null;
  const of = (a: ArmSummary, id: string) => a.heldoutScenarios.find((h) => h.scenarioId === id);
  const pct = (m: MeanInterval) => (m.mean * 100).toFixed(1);
  return {
    title: `Held-out routing per scenario, final DA − DA0 (own CA); DA0 → final for ${first.arm}:`,
    header: ['scenario', `${first.arm} DA0 → final`, ...arms.map((a) => `${a.arm} final − DA0`)],
    rows: ids.map((id) => {
      const f = of(first, id);
      return [id, f ? `${pct(f.da0)} → ${pct(f.final)}` : '–', ...arms.map((a) => (of(a, id) ? fmt(of(a, id)!.gain, true) : '–'))];
    }),
  };
}

/**
 * Held-out routing by the arena's reach (ArmSummary.heldoutReach): the scenarios that share an
 * intent with the arena against those that do not, DA0 → final and the gain per arm. `study show`,
 * `report --study` and the Studies screen.
 */
export function heldoutReachView(arms: readonly ArmSummary[]): { title: string; header: string[]; rows: string[][] } | null {
  const shown = arms.filter((a) => a.heldoutReach);
  if (!shown.length) return null;
  const groups = [
    ['arenaIntents', 'intents the arena plays'],
    ['otherIntents', 'intents it never plays'],
  ] as const;
  return {
    title: 'Held-out routing by the arena’s reach, DA0 → final DA (own CA); per seed the mean over the group’s scenarios:',
    header: ['arm', 'held-out scenarios of', 'scenarios', 'DA0', 'final DA', 'final − DA0'],
    rows: shown.flatMap((a) => [
      ...groups.map(([k, label]) => {
        const g = a.heldoutReach![k];
        return [a.arm, label, String(g.scenarios.length), fmt(g.da0, true), fmt(g.final, true), fmt(g.gain, true)];
      }),
      [a.arm, 'the first − the second (paired)', '', '', '', fmt(a.heldoutReach!.gainDifference, true)],
    ]),
  };
}

export function renderStudyReport(input: StudyReportInput): string {
  const s = input.arenaOnly ? { ...input, summary: arenaOnlySummary(input.summary) } : input;
  const colour = (arm: string) => ARM_COLOURS[s.arms.indexOf(arm) % ARM_COLOURS.length]!;
  const measureTable = (prefix: string) => {
    const defs = FIVE.map((k) => MEASURES.find((m) => m.key === `${prefix}.${k}`)!);
    return htmlTable(
      ['arm', 'seeds', ...defs.map((d) => d.label.replace(/^(final DA|DA0|final − DA0) /, '').replace(/ \(.*\)$/, ''))],
      s.summary.arms.map((a) => [a.arm, a.seeds.finished, ...defs.map((d) => fmt(a.measures[d.key]!, d.rate))]),
    );
  };
  const perScenario = heldoutScenarioView(s.summary.arms);
  const reach = heldoutReachView(s.summary.arms);
  const wDa = bandChart(
    s.summary.arms.map((a) => ({ name: a.arm, colour: colour(a.arm), points: a.wDa })),
    { title: 'W_DA per match, mean and 95% band per arm', rate: true, tauDa: s.tauDa },
  );
  const tactics = TACTIC_FIELDS.map(
    ([k, , label]) =>
      `<div class="cell"><h3>${esc(label)}</h3>${bandChart(
        s.summary.arms.map((a) => ({ name: a.arm, colour: colour(a.arm), points: a.tactics[k] })),
        { title: `${label} per match`, rate: k === 'decoyRate' || k === 'hedgeRate', width: 460, height: 220 },
      )}</div>`,
  ).join('');
  const pairedKeys = [
    'final.routing',
    'final.strictPass',
    'final.scripted.routing',
    'final.fullCa.routing',
    'gain.routing',
    'gain.strictPass',
    'daGyms',
    'caGyms',
  ];
  const pairedDefs = pairedKeys.filter((k) => !s.arenaOnly || !isHeldoutMeasure(k)).map((k) => MEASURES.find((m) => m.key === k)!);
  const paired = s.summary.paired.length
    ? htmlTable(
        ['arm − ' + (s.summary.baseline ?? ''), 'pairs', ...pairedDefs.map((d) => d.label)],
        s.summary.paired.map((p) => [`${p.a} − ${p.b}`, p.measures[pairedDefs[0]!.key]!.n, ...pairedDefs.map((d) => fmt(p.measures[d.key]!, d.rate))]),
      )
    : '<p class="meta">One arm: no paired differences.</p>';
  // Counterpart shift (IB-RL; core/arena/panel.ts): panel average, training counterpart and the gap, then the paired differences on them.
  const PANEL = ['routing', 'strictPass', 'meanReward'];
  const hasPanel = s.summary.arms.some((a) => a.measures['panel.routing']?.n);
  const panelRows = (prefix: string) => PANEL.map((k) => MEASURES.find((m) => m.key === `${prefix}.${k}`)!);
  const panelTable = (prefix: string) =>
    htmlTable(
      ['arm', 'seeds', ...panelRows(prefix).map((d) => d.label)],
      s.summary.arms.map((a) => [a.arm, a.measures[`${prefix}.routing`]!.n, ...panelRows(prefix).map((d) => fmt(a.measures[d.key]!, d.rate))]),
    );
  const panelPairedDefs = [...panelRows('panel'), ...panelRows('panel.gap')];
  const estimates = (['train', 'validation'] as const).flatMap((k) => [
    ...(s.arenaEstimate?.[k] ? [s.arenaEstimate[k]] : []),
    ...(s.otherIntentsEstimate?.[k] ? [s.otherIntentsEstimate[k]] : []),
  ]);
  const estimate = estimates.length
    ? estimates
        .map((t) => {
          const v = estimateView(t);
          const sc = estimateScenarioView(t);
          return `<p class="meta">${esc(v.title)}. Nothing held out is read.</p>${htmlTable(v.header, v.rows)}${sc ? `<p class="meta">${esc(sc.title)}.</p>${htmlTable(sc.header, sc.rows)}` : ''}`;
        })
        .join('\n')
    : `<p class="meta">None stored yet: <code>sparring study estimate ${esc(s.id)}</code> plays it (two arena matches a run).</p>`;
  const panel = hasPanel
    ? `<h2>Counterpart shift (IB-RL)</h2>
<p class="meta">Each final DA against a panel that shares nothing with its training — the scripted CA, the final CAs of the study's other seeds, human customer episodes, LLM CAs — averaged over counterparts; the gap is its score against its training counterpart minus the panel average. Mean [95% t interval] over seeds.</p>
<h3>Panel average</h3>${panelTable('panel')}
<h3>Training counterpart</h3>${panelTable('panel.training')}
<h3>Mismatch gap (training − panel)</h3>${panelTable('panel.gap')}
${
  s.summary.paired.length
    ? `<h3>Paired differences on the panel, arm − ${esc(s.summary.baseline ?? '')}</h3>${htmlTable(
        ['arm − ' + (s.summary.baseline ?? ''), 'pairs', ...panelPairedDefs.map((d) => d.label)],
        s.summary.paired.map((p) => [`${p.a} − ${p.b}`, p.measures['panel.routing']!.n, ...panelPairedDefs.map((d) => fmt(p.measures[d.key]!, d.rate))]),
      )}`
    : ''
}`
    : `<p class="meta">No panel figures yet: <code>sparring study panel ${esc(s.id)}</code> evaluates each final DA against counterparts that share nothing with its training.</p>`;
  const shapeTable = shapeView(s.summary.arms);
  const shape = htmlTable(shapeTable.header, shapeTable.rows);
  const single = (m: { mean: number }) => ({ n: 1, mean: m.mean, sd: 0, ci: null, t: null, df: 0 });
  const perSeed = s.seeds
    .map((seed) => {
      const series = s.arms.flatMap((arm) => {
        const r = s.runs.find((x) => x.arm === arm && x.seed === seed);
        return r ? [{ name: arm, colour: colour(arm), points: r.matches.map((m) => ({ match: m.index, ...single({ mean: m.wDa }) })) }] : [];
      });
      return `<div class="cell small"><h3>seed ${seed}</h3>${bandChart(series, { title: `W_DA per match, seed ${seed}`, rate: true, width: 300, height: 170, tauDa: s.tauDa, legend: false })}</div>`;
    })
    .join('');
  const convergence = s.summary.arms
    .flatMap((a) => {
      const v = tacticConvergenceView(a);
      if (!v) return [];
      return [
        `<h3>${esc(v.headline)}</h3>${htmlTable(['', 'tactic shares'], v.rows)}` +
          (v.examples.length
            ? `<p class="meta">Example openings of that tactic (CA wins first):</p><ul>${v.examples.map((e) => `<li>${esc(e)}</li>`).join('')}</ul>`
            : '') +
          `<p class="meta">The CA's win rate in the last match with and without each feature of its opening, and what its gym climbs: the mean r_CA and each term's difference (a feature that wins but costs realism or conceal is one the CA's reward steers away from):</p>${htmlTable(SPLIT_HEADER, v.splits)}` +
          (v.firstSplits.length
            ? `<p class="meta">The same in the first match (CA0 against DA0): a feature that won there and that the CA uses less by the last match is one its gyms gave up:</p>${htmlTable(SPLIT_HEADER, v.firstSplits)}`
            : ''),
      ];
    })
    .join('\n');
  const caPolicy = s.caPolicy
    ? caPolicySection(s.caPolicy, colour)
    : `<p class="meta">Not read: <code>sparring report --study ${esc(s.id)} --ca-policy</code> adds it (one forward pass of two CAs a run, nothing replayed; the same tables as <code>sparring study ca-policy ${esc(s.id)}</code>).</p>`;
  const runs = htmlTable(
    ['arm', 'seed', 'run', 'status', 'matches', 'DA gyms', 'CA gyms', 'note'],
    s.runs.map((r) => [
      r.arm,
      r.seed,
      r.runId ?? '',
      r.status,
      r.matches.length,
      r.gyms.filter((g) => g.role === 'DA').length,
      r.gyms.filter((g) => g.role === 'CA').length,
      r.error ?? '',
    ]),
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sparring study ${esc(s.id)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${REPORT_STYLE}
.grid{display:flex;flex-wrap:wrap;gap:12px}.cell h3{margin:4px 0}.small svg{border:1px solid #e2e8f0;border-radius:4px}
</style></head><body>
<h1>Sparring study ${esc(s.id)}</h1>
<p class="meta">${s.preset ? `preset ${esc(s.preset)}` : 'custom config'} · arms ${esc(s.arms.join(', '))} · seeds ${esc(s.seeds.join(', '))} · ${esc(s.status)}</p>
${s.customArms?.length ? `<p class="meta">Custom arms, as overlays on the study's base: ${s.customArms.map((c) => `<b>${esc(c.arm)}</b> <code>${esc(JSON.stringify(c.overlay))}</code>`).join('; ')}</p>` : ''}
<p class="meta">Every figure is a mean over the seeds that finished, with its 95% Student-t interval in brackets; rates in %. Paired differences are taken seed by seed against ${esc(s.summary.baseline ?? '–')}. ${esc(s.arenaOnly ? 'Arena only, for choosing settings on the arena: no held-out or panel figure is shown.' : heldoutEpisodesNote(s.summary))}</p>
<h2>W_DA per match</h2>
${wDa}
<p class="meta">Line: mean over seeds; band: 95% interval (shown where at least two seeds played that match).</p>
${shape}
${
  s.arenaOnly
    ? ''
    : `<h2>Held-out evaluation (RL-ADA Table 4)</h2>
<h3>Final DA against the run's own final CA</h3>${measureTable('final')}
<h3>Final DA − DA0 (own CA)</h3>${measureTable('gain')}
<h3>Final DA against the scripted CA</h3>${measureTable('final.scripted')}
<h3>Final DA − DA0 (scripted CA)</h3>${measureTable('gain.scripted')}
${s.summary.arms.some((a) => a.arm !== 'full' && a.measures['final.fullCa.routing']!.n) ? `<h3>Final DA against the full arm's final CA of the same seed</h3>${measureTable('final.fullCa')}` : ''}
${perScenario ? `<h3>${esc(perScenario.title.replace(/:$/, ''))}</h3>${htmlTable(perScenario.header, perScenario.rows)}` : ''}
${reach ? `<h3>${esc(reach.title.replace(/:$/, ''))}</h3>${htmlTable(reach.header, reach.rows)}` : ''}`
}
<h2>Paired differences</h2>
${paired}
${s.arenaOnly ? '' : panel}
<h2>Arena-only estimate of the held-out gain</h2>
${estimate}
<h2>The CA's tactic measures per match</h2>
<div class="grid">${tactics}</div>
<h2>Which tactic the CA converged to</h2>
${convergence || '<p class="meta">No openings were read.</p>'}
<h2>The CA's policy, first match → last</h2>
${caPolicy}
<h2>Per seed</h2>
<div class="grid">${perSeed}</div>
<h2>Runs</h2>
${runs}
</body></html>
`;
}
