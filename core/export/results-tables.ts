/**
 * Every results table of the lab as a DataTable (core/export/data-table.ts), built from the same
 * data the screens and the CLI print: a run's held-out report (RL-ADA Table 4 and its
 * per-scenario rows), a study's summary (per-arm measures, paired differences, held-out routing by
 * the arena's reach), a DA's panel evaluation, and a tactic queue's report (Table 5, inter-annotator
 * agreement, the classifier's confusion matrix against the people's consensus).
 *
 * Rows are long ("tidy"): one figure a row with its interval and the episodes or seeds behind it,
 * rates as fractions in [0, 1] (a `rate` column says which), so a table loads into pandas or R
 * without parsing "91.7% [74–98]". Table 5 and the confusion matrix are the exceptions: they are
 * read as matrices, so they are written as one.
 */
import type { HeldoutReport, HeldoutTable } from '../arena/heldout-report';
import type { PanelRow, PanelSummary } from '../arena/panel';
import { PANEL_METRICS } from '../arena/panel';
import type { StudySummary } from '../coevolution/study-summary';
import { MEASURES } from '../coevolution/study-summary';
import type { TacticReport } from '../labels/types';
import type { GymSummary, MatchSummary } from '../coevolution/run.machine';
import type { MeanInterval } from '../stats/intervals';
import type { CellValue, DataTable } from './data-table';

const lo = (ci: readonly [number, number] | null | undefined) => ci?.[0] ?? null;
const hi = (ci: readonly [number, number] | null | undefined) => ci?.[1] ?? null;
/** mean, sd, ci_low, ci_high, n of a mean over seeds (or counterparts). */
const interval = (m: MeanInterval | undefined): CellValue[] => (m ? [m.mean, m.sd, lo(m.ci), hi(m.ci), m.n] : [null, null, null, null, 0]);
const INTERVAL_COLUMNS = (p: string) => [`${p}mean`, `${p}sd`, `${p}ci_low`, `${p}ci_high`, `${p}n`];

// ----------------------------------------------------------------------------- a run

const TABLE4_TITLE = 'RL-ADA Table 4: held-out evaluation of each DA checkpoint (rates as fractions, 95% Wilson interval, change from the run’s first DA)';

/** Table 4, long: one row per opponent × metric × checkpoint. Both opponents (the run's CA and the scripted CA) when stored. */
export function table4Table(runId: string, report: HeldoutReport | null): DataTable {
  const tables = report ? [report.vsRun, ...(report.vsReference ? [report.vsReference] : [])] : [];
  return {
    name: 'table4',
    title: `${TABLE4_TITLE}, run ${runId}`,
    columns: ['run', 'opponent', 'metric', 'checkpoint', 'value', 'ci_low', 'ci_high', 'episodes', 'delta_from_first', 'rate', 'gate_passed'],
    rows: tables.flatMap((t, ti) =>
      t.rows.flatMap((r) =>
        r.cells.map((c, i) => [
          runId,
          ti === 0 ? `run CA (${t.opponent})` : t.opponent,
          r.key,
          t.checkpoints[i] ?? null,
          c.value,
          lo(c.ci),
          hi(c.ci),
          c.n,
          c.delta,
          r.kind === 'rate',
          c.passed ?? null,
        ]),
      ),
    ),
  };
}

/** Per-scenario held-out results: one row per opponent × scenario × checkpoint. */
export function heldoutScenarioTable(runId: string, report: HeldoutReport | null): DataTable {
  const tables: [string, HeldoutTable][] = report
    ? [
        [`run CA (${report.vsRun.opponent})`, report.vsRun],
        ...(report.vsReference ? [[report.vsReference.opponent, report.vsReference] as [string, HeldoutTable]] : []),
      ]
    : [];
  return {
    name: 'scenarios',
    title: `Held-out results per scenario and DA checkpoint (rates as fractions), run ${runId}`,
    columns: ['run', 'opponent', 'scenario', 'checkpoint', 'episodes', 'routing_accuracy', 'strict_pass', 'mean_reward'],
    rows: tables.flatMap(([opponent, t]) =>
      t.scenarios.flatMap((s) =>
        s.cells.map((c, i) => [
          runId,
          opponent,
          s.scenarioId,
          t.checkpoints[i] ?? null,
          c?.episodes ?? 0,
          c?.routingAccuracy ?? null,
          c?.strictPass ?? null,
          c?.meanReward ?? null,
        ]),
      ),
    ),
  };
}

/** The arena per match: W_DA, the fraud reference rate and the stopping rule's decision, with the gym that followed. */
export function matchesTable(runId: string, matches: readonly MatchSummary[], gyms: readonly GymSummary[]): DataTable {
  return {
    name: 'matches',
    title: `Arena matches of run ${runId}: W_DA per match, the CA's tactic measures on its openings, and the gyms after it`,
    columns: [
      'run',
      'match',
      'match_id',
      'da',
      'ca',
      'w_da',
      'w_ca',
      'fraud_rate',
      'openings',
      'mean_tokens',
      'mean_entity_density',
      'decoy_rate',
      'hedge_rate',
      'stop',
      'gym_after',
    ],
    rows: matches.map((m) => [
      runId,
      m.index,
      m.matchId,
      m.da,
      m.ca,
      m.wDa,
      1 - m.wDa,
      m.fraudRate,
      m.tactics.n,
      m.tactics.meanTokens,
      m.tactics.meanEntityDensity,
      m.tactics.decoyRate,
      m.tactics.hedgeRate,
      m.stop.stop,
      gyms
        .filter((g) => g.afterMatch === m.index)
        .map((g) => `${g.role} gym → ${g.to}`)
        .join('; ') || null,
    ]),
  };
}

// ----------------------------------------------------------------------------- the panel

function panelCells(kind: string, label: string, r: PanelRow): CellValue[] {
  return [
    kind,
    label,
    r.counterpart.kind,
    r.episodes,
    ...PANEL_METRICS.flatMap(([k]) => [r.cells[k].value, lo(r.cells[k].ci), hi(r.cells[k].ci)]),
    r.replay ? r.replay.replayedTurns : null,
    r.replay ? r.replay.humanTurns : null,
  ];
}

/** The panel evaluation (counterpart shift): training counterpart, each member, the average and the mismatch gap. */
export function panelTable(da: string, s: PanelSummary): DataTable {
  const metricCols = PANEL_METRICS.flatMap(([k]) => [k, `${k}_ci_low`, `${k}_ci_high`]);
  const summaryRow = (kind: string, label: string, m: Record<string, MeanInterval>): CellValue[] => [
    kind,
    label,
    null,
    m.routing?.n ?? null,
    ...PANEL_METRICS.flatMap(([k]) => [m[k]?.mean ?? null, lo(m[k]?.ci), hi(m[k]?.ci)]),
    null,
    null,
  ];
  return {
    name: 'panel',
    title: `Panel evaluation of ${da}: per counterpart (95% Wilson interval over episodes), the average and the gap (95% t interval over counterparts; their "episodes" column counts counterparts)`,
    columns: ['row', 'counterpart', 'kind', 'episodes', ...metricCols, 'replayed_turns', 'human_turns'],
    rows: [
      ...(s.training ? [panelCells('training', s.training.counterpart.label, s.training)] : []),
      ...s.rows.map((r) => panelCells('member', r.counterpart.label, r)),
      summaryRow('average', `panel average (${s.rows.length} counterparts)`, s.average),
      ...(s.gap ? [summaryRow('gap', 'mismatch gap (training − panel)', s.gap)] : []),
    ],
  };
}

// ----------------------------------------------------------------------------- a study

const measureLabel = new Map(MEASURES.map((m) => [m.key, m]));

/** Per arm and measure: mean, sd and 95% t interval over seeds. */
export function armsTable(studyId: string, s: StudySummary): DataTable {
  return {
    name: 'arms',
    title: `Study ${studyId}: each arm's measures, mean and 95% t interval over seeds (rates as fractions)`,
    columns: ['study', 'arm', 'measure', 'label', 'rate', ...INTERVAL_COLUMNS('')],
    rows: s.arms.flatMap((a) =>
      Object.entries(a.measures).map(([k, m]) => [studyId, a.arm, k, measureLabel.get(k)?.label ?? k, measureLabel.get(k)?.rate ?? false, ...interval(m)]),
    ),
  };
}

/** Paired differences a − b per measure, over the seeds both arms have. */
export function pairedTable(studyId: string, s: StudySummary): DataTable {
  return {
    name: 'paired',
    title: `Study ${studyId}: paired differences arm − baseline (${s.baseline ?? 'none'}) per measure, mean and 95% t interval over the seeds both have`,
    columns: ['study', 'arm', 'baseline', 'measure', 'label', 'rate', ...INTERVAL_COLUMNS(''), 't', 'df', 'seeds'],
    rows: s.paired.flatMap((p) =>
      Object.entries(p.measures).map(([k, d]) => [
        studyId,
        p.a,
        p.b,
        k,
        measureLabel.get(k)?.label ?? k,
        measureLabel.get(k)?.rate ?? false,
        ...interval(d),
        d.t,
        d.df,
        d.seeds.join(' '),
      ]),
    ),
  };
}

/** Held-out routing by the arena's reach: scenarios of intents the arena plays against the others, per arm. */
export function reachTable(studyId: string, s: StudySummary): DataTable {
  const groups = [
    ['arenaIntents', 'intents the arena plays'],
    ['otherIntents', 'intents it never plays'],
  ] as const;
  return {
    name: 'reach',
    title: `Study ${studyId}: held-out routing by the arena's reach, DA0 → final DA (own CA), mean and 95% t interval over seeds`,
    columns: ['study', 'arm', 'group', 'scenarios', ...INTERVAL_COLUMNS('da0_'), ...INTERVAL_COLUMNS('final_'), ...INTERVAL_COLUMNS('gain_')],
    rows: s.arms.flatMap((a) => {
      const r = a.heldoutReach;
      if (!r) return [];
      return [
        ...groups.map(([k, label]) => [
          studyId,
          a.arm,
          label,
          r[k].scenarios.join(' '),
          ...interval(r[k].da0),
          ...interval(r[k].final),
          ...interval(r[k].gain),
        ]),
        [
          studyId,
          a.arm,
          'gain difference (the first − the second, paired)',
          null,
          ...interval(undefined),
          ...interval(undefined),
          ...interval(r.gainDifference),
        ],
      ];
    }),
  };
}

/** W_DA per match per arm over seeds: the co-evolution's course. */
export function studyWDaTable(studyId: string, s: StudySummary): DataTable {
  return {
    name: 'wda',
    title: `Study ${studyId}: W_DA per match and arm, mean and 95% t interval over the seeds that played the match`,
    columns: ['study', 'arm', 'match', ...INTERVAL_COLUMNS('')],
    rows: s.arms.flatMap((a) => a.wDa.map((w) => [studyId, a.arm, w.match, ...interval(w)])),
  };
}

// ----------------------------------------------------------------------------- human labels

/** RL-ADA Table 5: per match, the share of each tactic label among the queue's openings. */
export function table5Table(r: TacticReport): DataTable {
  return {
    name: 'table5',
    title: `RL-ADA Table 5: tactic shares per match (fractions of the openings), queue ${r.queueId}`,
    columns: ['match', 'ca', 'items', ...r.labels],
    rows: [...r.perMatch]
      .sort((a, b) => a.matchId.localeCompare(b.matchId, 'en', { numeric: true }))
      .map((m) => [m.matchId, m.caSpec, m.items, ...r.labels.map((l) => m.shares[l] ?? 0)]),
  };
}

/** The agreement figures: Cohen's κ per pair of annotators, Fleiss' κ, Krippendorff's α, and the classifier's κ. */
export function agreementTable(r: TacticReport): DataTable {
  const a = r.agreement;
  return {
    name: 'agreement',
    title: `Agreement on the tactic labels of queue ${r.queueId}: Cohen's κ per pair, Fleiss' κ, Krippendorff's α (nominal), the rule classifier's Cohen's κ`,
    columns: ['measure', 'a', 'b', 'items', 'value'],
    rows: [
      ...a.pairs.map((p) => ['cohen_kappa', p.a, p.b, p.n, p.value]),
      ...(a.fleiss ? [['fleiss_kappa', 'all annotators', null, a.fleiss.n, a.fleiss.value]] : []),
      ...(a.alpha ? [['krippendorff_alpha', 'all annotators', null, a.alpha.n, a.alpha.value]] : []),
      ['cohen_kappa', 'classifier', 'consensus', r.auto.consensus.n, r.auto.consensus.value],
      ...r.auto.perAnnotator.map((p) => ['cohen_kappa', 'classifier', p.annotator, p.n, p.value]),
    ],
  };
}

/**
 * The confusion matrix of the rule classifier's tactic (rows) against the annotators' consensus
 * (columns), over the items with a consensus: counts of items.
 */
export function tacticConfusionTable(r: TacticReport): DataTable {
  const labels = [...new Set([...r.labels, ...r.items.map((i) => i.auto)])];
  const counts = new Map<string, number>();
  for (const i of r.items) if (i.consensus !== null) counts.set(`${i.auto}\u0000${i.consensus}`, (counts.get(`${i.auto}\u0000${i.consensus}`) ?? 0) + 1);
  return {
    name: 'confusion',
    title: `Confusion matrix of queue ${r.queueId}: the rule classifier's tactic (rows) against the annotators' consensus (columns), items`,
    columns: ['classifier \\ consensus', ...labels],
    rows: labels.map((a) => [a, ...labels.map((c) => counts.get(`${a}\u0000${c}`) ?? 0)]),
  };
}
