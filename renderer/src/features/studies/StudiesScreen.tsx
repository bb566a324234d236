/**
 * Studies: start one (preset, seeds, arms), watch it progress, compare its arms (W_DA per match
 * with 95% bands, the held-out table with intervals, paired differences against full, the CA's
 * tactic measures, per-seed small multiples, each arm's CA policy first match → last), open any of
 * its runs in the dashboard or the transcripts; and overlay any two runs of the lab.
 */
import { useEffect, useMemo, useState } from 'react';
import type { ArmSummary, EstimateScenarios, EstimateSlice, EstimateTables, MeanInterval, StudyDetail, StudyInfo } from '../../../../core/contract/contract';
import { Badge } from '../../components/Badge';
import { TableExport } from '../../components/TableExport';
import { Term } from '../../components/Term';
import { etaFrom, ProgressBar, useNow } from '../../components/ProgressBar';
import { EmptyState, ErrorState, LoadingState } from '../../components/StateViews';
import { navigate, selectRouteId, useNavStore } from '../../nav/nav-store';
import { loadPresets, selectPresets, useExperimentsStore } from '../experiments/experiments-store';
import { studyCaPolicy } from '../evaluation/ca-policy-store';
import { loadRuns, selectRuns, useRunsStore } from '../runs/runs-store';
import { runOptionLabel } from '../runs/run-identity';
import { RunIdentity } from '../runs/RunIdentity';
import { BandChart, SERIES_COLOURS } from './BandChart';
import { CaPolicyChart } from './CaPolicyChart';
import { fixed, meanText, signedFixed } from '../../format';
import {
  loadArms,
  loadOverlayRun,
  loadStudies,
  loadStudy,
  resumeStudy,
  selectArms,
  selectListError,
  selectOverlayError,
  selectOverlayRuns,
  selectStartError,
  selectStarting,
  selectStudies,
  selectStudy,
  selectStudyError,
  selectEstimateError,
  selectEstimating,
  estimateStudy,
  startStudy,
  showHeldout,
  useStudiesStore,
} from './studies-store';

/** An arm's colour on every chart of its study: its place among the study's arms. */
const armColour = (study: Pick<StudyDetail, 'arms'>, arm: string) => SERIES_COLOURS[study.arms.indexOf(arm) % SERIES_COLOURS.length]!;

const STATUS_TONE = { pending: 'neutral', running: 'da', interrupted: 'warn', finished: 'ok', failed: 'bad' } as const;

/** A study's status, and who runs it when another process does (a CLI's `sparring study`). */
function StudyStatus({ study }: { study: Pick<StudyInfo, 'status' | 'live' | 'owner'> }) {
  const elsewhere = study.status === 'running' && !study.live && study.owner;
  return (
    <Badge
      tone={STATUS_TONE[study.status]}
      title={
        elsewhere
          ? `Run by process ${study.owner!.pid} on ${study.owner!.host}, not by this app`
          : study.status === 'interrupted'
            ? 'No process runs it (killed, or the machine restarted); Resume continues it'
            : undefined
      }
    >
      {study.status}
      {elsewhere ? ` (process ${study.owner!.pid})` : ''}
    </Badge>
  );
}

export function StudiesScreen() {
  const studyId = useNavStore(selectRouteId);
  useEffect(() => {
    void loadStudies();
    void loadArms();
    void loadPresets();
    void loadRuns();
  }, []);
  return (
    <div className="screen" data-testid="screen-studies">
      <header className="screen-head">
        <h1>Studies</h1>
        <p className="lede">Seeds × arms of co-evolution runs: each arm an ablation of the method, each figure a mean over seeds with its 95% interval.</p>
      </header>
      {studyId ? (
        <StudyView studyId={studyId} />
      ) : (
        <>
          <div className="two-col">
            <NewStudy />
            <StudyList />
          </div>
          <RunOverlay />
        </>
      )}
    </div>
  );
}

function NewStudy() {
  const presets = useExperimentsStore(selectPresets);
  const arms = useStudiesStore(selectArms);
  const starting = useStudiesStore(selectStarting);
  const error = useStudiesStore(selectStartError);
  const [preset, setPreset] = useState('quick');
  const [seeds, setSeeds] = useState(2);
  const [chosen, setChosen] = useState<string[]>(['full', 'no-ca-training']);
  // The study's own arms: a name and a run-config overlay (JSON) merged over the preset.
  const [custom, setCustom] = useState<{ name: string; overlay: string }[]>([]);
  // The arena-only estimate to play once every run has finished ('' for none).
  const [estimate, setEstimate] = useState<EstimateSlice | ''>('');
  // A study for choosing settings on the arena: its views leave held-out and panel figures out.
  const [arenaOnly, setArenaOnly] = useState(false);
  const toggle = (a: string) => setChosen((c) => (c.includes(a) ? c.filter((x) => x !== a) : [...c, a]));
  const editCustom = (i: number, patch: Partial<{ name: string; overlay: string }>) => setCustom((c) => c.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  const start = async () => {
    const id = await startStudy({
      preset,
      seeds,
      arms: arms.map((a) => a.name).filter((a) => chosen.includes(a)),
      ...(custom.length ? { customArms: custom } : {}),
      ...(estimate ? { estimate } : {}),
      ...(arenaOnly ? { arenaOnly } : {}),
    });
    if (id) navigate('studies', id);
  };
  return (
    <section className="panel">
      <header className="panel-head">
        <h3>New study</h3>
      </header>
      <div className="form-row">
        <label>
          Preset
          <select value={preset} onChange={(e) => setPreset(e.target.value)} data-testid="study-preset">
            {presets.map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Seeds
          <input type="number" min={1} max={100} value={seeds} onChange={(e) => setSeeds(e.target.valueAsNumber)} data-testid="study-seeds" />
        </label>
        <label title="Each run's DA0 and final DA against its final CA on the arena scenarios, once every run has finished; nothing held out is read">
          Arena-only estimate
          <select value={estimate} onChange={(e) => setEstimate(e.target.value as EstimateSlice | '')} data-testid="study-estimate-after">
            <option value="">later, on request</option>
            <option value="train">when the runs finish, CA speaking the train slice</option>
            <option value="validation">when the runs finish, CA speaking the validation slice</option>
          </select>
        </label>
        <label
          className="check"
          title="A study for choosing settings: none of its views (this screen, study show, report --study) shows a held-out or panel figure unless asked for by name"
        >
          <input type="checkbox" checked={arenaOnly} onChange={() => setArenaOnly((x) => !x)} data-testid="study-arena-only-new" /> arena only, for choosing
          settings
        </label>
      </div>
      <fieldset className="arm-picker" data-testid="study-arms">
        <legend>Arms</legend>
        {arms.map((a) => (
          <label key={a.name} className="check" title={a.description}>
            <input type="checkbox" checked={chosen.includes(a.name)} onChange={() => toggle(a.name)} /> <b>{a.name}</b>{' '}
            <span className="muted">{a.description}</span>
          </label>
        ))}
      </fieldset>
      <fieldset className="arm-picker" data-testid="study-custom-arms">
        <legend>Custom arms</legend>
        <p className="muted small">A name and a run-config overlay (JSON) merged over the preset, compared with the arms above on the same seeds.</p>
        {custom.map((c, i) => (
          <div key={i} className="form-row">
            <label>
              Name
              <input value={c.name} onChange={(e) => editCustom(i, { name: e.target.value })} placeholder="my-change" data-testid={`custom-arm-name-${i}`} />
            </label>
            <label className="grow">
              Overlay
              <textarea
                rows={2}
                className="mono"
                value={c.overlay}
                onChange={(e) => editCustom(i, { overlay: e.target.value })}
                placeholder='{"gym": {"da": {"steps": 240}}}'
                data-testid={`custom-arm-overlay-${i}`}
              />
            </label>
            <button className="btn tiny" onClick={() => setCustom((x) => x.filter((_, j) => j !== i))} aria-label={`remove custom arm ${i + 1}`}>
              Remove
            </button>
          </div>
        ))}
        <div className="form-row">
          <button className="btn tiny" onClick={() => setCustom((x) => [...x, { name: '', overlay: '{}' }])} data-testid="add-custom-arm">
            Add a custom arm
          </button>
        </div>
      </fieldset>
      {error && (
        <div className="inline-error" role="alert" data-testid="study-start-error">
          The engine refused this study: {error}
        </div>
      )}
      <div className="form-row">
        <button
          className="btn primary"
          disabled={starting || !(chosen.length || custom.length) || !Number.isInteger(seeds) || seeds < 1}
          onClick={() => void start()}
          data-testid="start-study"
        >
          {starting ? 'Starting…' : 'Start study'}
        </button>
      </div>
    </section>
  );
}

function StudyList() {
  const studies = useStudiesStore(selectStudies);
  const error = useStudiesStore(selectListError);
  return (
    <section className="panel">
      <header className="panel-head">
        <h3>Studies in this lab</h3>
        <button className="btn tiny" onClick={() => void loadStudies()}>
          Refresh
        </button>
      </header>
      {error && <ErrorState title="Could not load studies" error={error} actions={[{ label: 'Retry', onClick: () => void loadStudies() }]} />}
      {!error && studies.length === 0 && <EmptyState title="No studies yet">A study you start appears here with its progress.</EmptyState>}
      {studies.length > 0 && (
        <table className="table" data-testid="studies-table">
          <thead>
            <tr>
              <th>Study</th>
              <th>Preset</th>
              <th>Arms</th>
              <th className="num">Seeds</th>
              <th>Status</th>
              <th className="num">Runs done</th>
            </tr>
          </thead>
          <tbody>
            {[...studies].reverse().map((s) => (
              <tr key={s.id} className="clickable" onClick={() => navigate('studies', s.id)}>
                <td className="mono">
                  {s.id} {s.arenaOnly && <ArenaOnlyBadge />}
                </td>
                <td>{s.preset || 'custom'}</td>
                <td>{s.arms.join(', ')}</td>
                <td className="num">{s.seeds.length}</td>
                <td>
                  <StudyStatus study={s} />
                </td>
                <td className="num">
                  {s.runs.filter((r) => r.status === 'finished').length}/{s.runs.length}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function ArenaOnlyBadge() {
  return (
    <Badge tone="neutral" title="Made for choosing settings on the arena: its held-out and panel figures are left out unless asked for by name">
      arena only
    </Badge>
  );
}

function StudyView({ studyId }: { studyId: string }) {
  const detail = useStudiesStore(selectStudy(studyId));
  const error = useStudiesStore(selectStudyError(studyId));
  const info = useStudiesStore((s) => s.studies.find((x) => x.id === studyId));
  useEffect(() => {
    void loadStudy(studyId);
  }, [studyId]);
  if (error && !detail)
    return <ErrorState title={`Could not load study ${studyId}`} error={error} actions={[{ label: 'Back to studies', onClick: () => navigate('studies') }]} />;
  if (!detail) return <LoadingState label={`Loading study ${studyId}…`} />;
  const live = info ?? detail;
  return (
    <div data-testid="study-view">
      <section className="panel">
        <header className="panel-head">
          <h3>
            Study {detail.id}: {detail.preset || 'custom'} · {detail.arms.join(', ')} · {detail.seeds.length} seeds {detail.arenaOnly && <ArenaOnlyBadge />}
          </h3>
          <span>
            <StudyStatus study={live} />{' '}
            {(live.status === 'interrupted' || live.status === 'failed') && !live.live && (
              <button className="btn tiny" onClick={() => void resumeStudy(studyId)} data-testid="resume-study">
                Resume
              </button>
            )}{' '}
            <button className="btn tiny" onClick={() => navigate('studies')}>
              All studies
            </button>
          </span>
        </header>
        <StudyProgress study={live} />
        <HostsNote study={detail} />
        {detail.customArms.length > 0 && (
          <p className="muted small" data-testid="study-custom-arms-note">
            Custom arms, as overlays on the study&apos;s base:{' '}
            {detail.customArms.map((c, i) => (
              <span key={c.arm}>
                {i > 0 && '; '}
                <b>{c.arm}</b> <code>{JSON.stringify(c.overlay)}</code>
              </span>
            ))}
          </p>
        )}
        <RunsTable study={detail} />
      </section>
      <Compare key={detail.id} study={detail} />
      <StudyCaPolicy study={detail} />
      <ArenaEstimate key={detail.id} study={detail} />
    </div>
  );
}

function StudyProgress({ study }: { study: StudyInfo }) {
  const p = study.progress;
  const showing = !!p && study.live;
  // Ticks while the study is live, so `started` below is within one tick of when progress first came.
  const now = useNow(study.live);
  // When this view first saw the study's progress (React's "adjust state while rendering" pattern).
  const [started, setStarted] = useState<number | null>(null);
  if (showing && started === null) setStarted(now);
  if (!p || !study.live) return null;
  const done = Math.round(p.value * 10) / 10;
  return (
    <div data-testid="study-progress">
      <ProgressBar
        label={`runs and evaluations (${p.finished} done${p.failed ? `, ${p.failed} failed` : ''})`}
        done={done}
        total={p.total}
        etaSeconds={started === null ? null : etaFrom(started, now, p.value, p.total)}
      />
      <ul className="muted small">
        {p.running.map((r) => (
          <li key={`${r.arm}/${r.seed}`}>
            {r.arm} seed {r.seed} ({r.runId}): {r.phase} {r.label ? `— ${r.label}` : ''}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Shown when the study's runs ran on more than one processor: their figures are not a one-machine result. */
function HostsNote({ study }: { study: StudyDetail }) {
  const hosts = study.hosts;
  if (hosts.length < 2) return null;
  return (
    <p className="muted small" data-testid="study-hosts">
      Its runs ran on {hosts.length} processors ({hosts.map((h) => `${h.host}: ${h.runs} runs`).join('; ')}). onnxruntime&apos;s CPU kernels follow the
      instruction set, so the same seed and config can give other figures on another of them.
    </p>
  );
}

function RunsTable({ study }: { study: StudyDetail }) {
  return (
    <table className="table" data-testid="study-runs">
      <thead>
        <tr>
          <th>Arm</th>
          <th className="num">Seed</th>
          <th>Run</th>
          <th>Status</th>
          <th className="num">Matches</th>
          <th>Open</th>
          <th>Note</th>
        </tr>
      </thead>
      <tbody>
        {study.runs.map((r) => (
          <tr key={`${r.arm}/${r.seed}`}>
            <td>{r.arm}</td>
            <td className="num">{r.seed}</td>
            <td className="mono">{r.runId}</td>
            <td>
              <Badge tone={STATUS_TONE[r.status]}>{r.status}</Badge>
            </td>
            <td className="num">{r.matches}</td>
            <td>
              <button className="btn tiny" onClick={() => navigate('runs', r.runId)} data-testid={`open-run-${r.runId}`}>
                Dashboard
              </button>{' '}
              <button className="btn tiny" disabled={!r.matches} onClick={() => navigate('transcripts', null, { match: `${r.runId}-M1` })}>
                Transcripts
              </button>
            </td>
            <td className="small">{r.error ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const pctOrNum = (m: MeanInterval | undefined, rate: boolean) => {
  if (!m || !m.n) return '–';
  const f = (v: number) => (rate ? fixed(v * 100, 1) : fixed(v, 2));
  return meanText(m, f);
};

const HELDOUT = [
  ['routing', 'routing', true],
  ['strictPass', 'strict PASS', true],
  ['fail', 'FAIL', true],
  ['meanReward', 'mean reward', false],
  ['lookupFirst', 'lookup-first', true],
] as const;
const TACTICS = [
  ['entityDensity', 'entity density', false],
  ['tokens', 'opening tokens', false],
  ['decoyRate', 'decoy rate', true],
  ['hedgeRate', 'hedge rate', true],
] as const;

/**
 * Held-out routing per scenario against each run's own final CA: DA0 → final DA for the first arm
 * shown, and every shown arm's final − DA0 (paired within seeds): which held-out scenarios the
 * arena's gains reach. The same table as `study show` and `report --study`.
 */
function HeldoutScenarios({ arms }: { arms: readonly ArmSummary[] }) {
  return (
    <ScenarioGainTable
      title="Held-out routing per scenario, final DA − DA0 (own CA)"
      testId="study-heldout-scenarios"
      gainLabel="final − DA0"
      arms={arms.map((a) => ({ arm: a.arm, scenarios: a.heldoutScenarios }))}
      figure={(m) => pctOrNum(m, true)}
      level={(v) => (v * 100).toFixed(1)}
    />
  );
}

/**
 * A scenario per row: DA0 → final DA of the first arm, then each arm's gain (the held-out table
 * and the arena-only estimate's), `figure` writing a gain and `level` a DA0 or final mean.
 */
function ScenarioGainTable(p: {
  title: string;
  testId: string;
  gainLabel: string;
  arms: readonly { arm: string; scenarios: readonly { scenarioId: string; da0: MeanInterval; final: MeanInterval; gain: MeanInterval }[] }[];
  figure: (m: MeanInterval) => string;
  level: (v: number) => string;
}) {
  const arms = p.arms.filter((a) => a.scenarios.length);
  const ids = [...new Set(arms.flatMap((a) => a.scenarios.map((x) => x.scenarioId)))];
  const first = arms[0];
  if (!ids.length || !first) return null;
  const of = (a: (typeof arms)[number], id: string) => a.scenarios.find((x) => x.scenarioId === id);
  return (
    <>
      <h4>{p.title}</h4>
      <table className="table" data-testid={p.testId}>
        <thead>
          <tr>
            <th>Scenario</th>
            <th className="num">{first.arm}: DA0 → final</th>
            {arms.map((a) => (
              <th key={a.arm} className="num">
                {a.arm}: {p.gainLabel}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {ids.map((id) => {
            const f = of(first, id);
            return (
              <tr key={id} data-scenario={id}>
                <td>{id}</td>
                <td className="num">{f ? `${p.level(f.da0.mean)} → ${p.level(f.final.mean)}` : '–'}</td>
                {arms.map((a) => {
                  const x = of(a, id);
                  return (
                    <td key={a.arm} className="num">
                      {x ? p.figure(x.gain) : '–'}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

/**
 * Held-out routing by the arena's reach: the held-out scenarios that share an intent with the
 * arena against those that do not, per arm (ArmSummary.heldoutReach), and the paired difference of
 * their gains: how much of the gain reaches intents the gyms never train on. As `study show`.
 */
function HeldoutReach({ arms }: { arms: readonly ArmSummary[] }) {
  const shown = arms.filter((a) => a.heldoutReach);
  if (!shown.length) return null;
  const groups = [
    ['arenaIntents', 'intents the arena plays'],
    ['otherIntents', 'intents it never plays'],
  ] as const;
  return (
    <>
      <h4>Held-out routing by the arena’s reach (own CA)</h4>
      <table className="table" data-testid="study-heldout-reach">
        <thead>
          <tr>
            <th>Arm</th>
            <th>Held-out scenarios of</th>
            <th className="num">Scenarios</th>
            <th className="num">DA0</th>
            <th className="num">Final DA</th>
            <th className="num">Final − DA0</th>
          </tr>
        </thead>
        <tbody>
          {shown.flatMap((a) => [
            ...groups.map(([k, label]) => {
              const g = a.heldoutReach![k];
              return (
                <tr key={`${a.arm}/${k}`} data-arm={a.arm} data-group={k}>
                  <td>{a.arm}</td>
                  <td title={g.scenarios.join(', ')}>{label}</td>
                  <td className="num">{g.scenarios.length}</td>
                  <td className="num">{pctOrNum(g.da0, true)}</td>
                  <td className="num">{pctOrNum(g.final, true)}</td>
                  <td className="num">{pctOrNum(g.gain, true)}</td>
                </tr>
              );
            }),
            <tr key={`${a.arm}/difference`} data-arm={a.arm} data-group="difference">
              <td>{a.arm}</td>
              <td>the first − the second (paired)</td>
              <td className="num" />
              <td className="num" />
              <td className="num" />
              <td className="num">{pctOrNum(a.heldoutReach!.gainDifference, true)}</td>
            </tr>,
          ])}
        </tbody>
      </table>
      <p className="meta">Per seed the mean over the group’s scenarios, then mean [95% t] over seeds. A DA’s gyms only see the arena’s intents.</p>
    </>
  );
}

/**
 * Why the CA converged where it did, per arm: its win rate in the last match with and without each
 * feature of an opening (and the gap within each expected tool, the mix of intents held fixed),
 * beside what its gym climbs, the mean r_CA, and which of r_CA's terms makes the difference.
 */
function TacticEvidence({ arms }: { arms: readonly ArmSummary[] }) {
  const [match, setMatch] = useState<'last' | 'first'>('last');
  const splitsOf = (a: ArmSummary) => (match === 'last' ? a.tactic!.splits : a.tactic!.firstSplits);
  const shown = arms.filter((a) => a.tactic && a.tactic.splits.length > 0);
  if (!shown.length) return null;
  const pct = (v: number | null, n: number) => (v === null ? '–' : `${Math.round(v * 100)}% (${n})`);
  return (
    <details data-testid="study-tactic-evidence">
      <summary>Why: the CA&apos;s wins and its reward with and without each feature of an opening</summary>
      <label className="small">
        match{' '}
        <select
          aria-label="Tactic evidence match"
          data-testid="tactic-evidence-match"
          value={match}
          onChange={(e) => setMatch(e.target.value as 'last' | 'first')}
        >
          <option value="last">the last (final CA against the final DA)</option>
          <option value="first">the first (CA0 against DA0)</option>
        </select>
      </label>
      {shown.map((a) => (
        <table key={a.arm} className="table">
          <caption className="small">{a.arm}</caption>
          <thead>
            <tr>
              <th>Feature of the opening</th>
              <th className="num">CA win with</th>
              <th className="num">without</th>
              <th className="num">gap within tool</th>
              <th className="num">r_CA with</th>
              <th className="num">without</th>
              <th className="num">format / realism / conceal / inverse-DA, with − without</th>
            </tr>
          </thead>
          <tbody>
            {splitsOf(a).map((sp) => (
              <tr key={sp.feature}>
                <td>{sp.feature}</td>
                <td className="num">{pct(sp.withCaWin, sp.withN)}</td>
                <td className="num">{pct(sp.withoutCaWin, sp.withoutN)}</td>
                <td className="num">{sp.withinToolGap === null ? '–' : signedFixed(sp.withinToolGap * 100, 0)}</td>
                <td className="num">{sp.withRCa ? sp.withRCa.total.toFixed(2) : '–'}</td>
                <td className="num">{sp.withoutRCa ? sp.withoutRCa.total.toFixed(2) : '–'}</td>
                <td className="num">
                  {sp.withRCa && sp.withoutRCa
                    ? (['format', 'realism', 'conceal', 'invDa'] as const).map((k) => signedFixed(sp.withRCa![k] - sp.withoutRCa![k], 2)).join(' / ')
                    : '–'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
      <p className="hint">
        A feature that wins more often but that the CA uses less is one its gym does not find (one that won in the first match and that the last match&apos;s
        openings carry less often is one its gyms gave up); a term that is lower with the feature is one its reward steers away by. The gap within tool compares
        openings of the same expected tool only (Mantel–Haenszel weights), so an intent mix cannot make it.
      </p>
    </details>
  );
}

/** The study's tables as CSV/JSON (`sparring export S --table …`); arena only: without held-out or panel figures. */
function StudyExports({ study, arenaOnly }: { study: StudyDetail; arenaOnly: boolean }) {
  const tables = [
    ['arms', 'per-arm measures'],
    ['paired', 'paired differences'],
    ...(arenaOnly ? [] : ([['reach', 'by the arena’s reach']] as const)),
    ['wda', 'W_DA per match'],
  ] as const;
  return (
    <p className="small table-exports" data-testid="study-exports">
      <span className="muted">Export:</span>
      {tables.map(([name, label]) => (
        <span key={name} className="nowrap">
          {' '}
          {label} <TableExport id={study.id} name={name} label={`the ${label} of ${study.id}`} arenaOnly={arenaOnly} />
        </span>
      ))}
    </p>
  );
}

function Compare({ study }: { study: StudyDetail }) {
  const [shown, setShown] = useState<string[]>(study.arms);
  const colour = (arm: string) => armColour(study, arm);
  const arms = study.summary.arms.filter((a) => shown.includes(a.arm));
  const [view, setView] = useState<'final' | 'gain' | 'final.scripted' | 'gain.scripted' | 'final.fullCa'>('final');
  // Arena only: no held-out or panel figure on screen (as `study show --arena-only`), for choosing settings on the arena.
  // A study made arena-only comes without them; unticking asks the engine for them by name (`study show --heldout`).
  const [hide, setHide] = useState(study.heldoutHidden);
  const toggleArenaOnly = () => {
    if (hide && study.heldoutHidden) void showHeldout(study.id);
    setHide(!hide);
  };
  // Hidden while the engine has not sent them yet, too.
  const arenaOnly = hide || study.heldoutHidden;
  const heldout = arenaOnly ? [] : HELDOUT;
  return (
    <section className="panel" data-testid="study-compare">
      <header className="panel-head">
        <h3>Compare arms</h3>
        <span className="arm-toggles">
          <label className="check" title="Hide every held-out and panel figure: choose settings on the arena without reading what evaluation reports">
            <input type="checkbox" checked={hide} onChange={toggleArenaOnly} data-testid="study-arena-only" /> arena only
          </label>
          {study.arms.map((a) => (
            <label key={a} className="check">
              <input
                type="checkbox"
                checked={shown.includes(a)}
                onChange={() => setShown((s) => (s.includes(a) ? s.filter((x) => x !== a) : [...s, a]))}
                data-testid={`compare-${a}`}
              />{' '}
              {a}
            </label>
          ))}
        </span>
      </header>
      <StudyExports study={study} arenaOnly={arenaOnly} />
      <h4>W_DA per match (mean, 95% band over seeds)</h4>
      <BandChart
        label="W_DA per match per arm"
        testId="study-wda-chart"
        rate
        tau={study.tauDa}
        series={arms.map((a) => ({ name: a.arm, colour: colour(a.arm), points: a.wDa }))}
      />
      {study.arenaOnly && (
        <p className="muted small" data-testid="study-made-arena-only">
          {arenaOnly
            ? 'Made arena-only, for choosing settings on the arena: its held-out and panel figures are left out. Untick “arena only” to fetch them.'
            : 'Made arena-only, for choosing settings on the arena: these held-out and panel figures were asked for by name. Choose nothing on them.'}
        </p>
      )}
      {arenaOnly ? (
        <h4>Gyms and W_DA (held-out figures hidden)</h4>
      ) : (
        <h4>
          Held-out evaluation{' '}
          <select value={view} onChange={(e) => setView(e.target.value as typeof view)} data-testid="heldout-view">
            <option value="final">final DA, own final CA</option>
            <option value="gain">final − DA0, own CA</option>
            <option value="final.scripted">final DA, scripted CA</option>
            <option value="gain.scripted">final − DA0, scripted CA</option>
            <option value="final.fullCa">final DA, the full arm's final CA</option>
          </select>
        </h4>
      )}
      <table className="table" data-testid="study-heldout">
        <thead>
          <tr>
            <th>Arm</th>
            <th className="num">Seeds</th>
            {heldout.map(([, l]) => (
              <th key={l} className="num">
                {l}
              </th>
            ))}
            <th className="num">DA gyms</th>
            <th className="num">CA gyms</th>
            <th className="num">DA trained</th>
            <th className="num">W_DA non-monotonic</th>
            <th className="num">ΔW_DA after a CA gym</th>
            <th className="num">after a DA gym</th>
          </tr>
        </thead>
        <tbody>
          {arms.map((a) => (
            <tr key={a.arm}>
              <td>{a.arm}</td>
              <td className="num">
                {a.seeds.finished}/{a.seeds.total}
              </td>
              {heldout.map(([k, , rate]) => (
                <td key={k} className="num">
                  {pctOrNum(a.measures[`${view}.${k}`], rate)}
                </td>
              ))}
              <td className="num">{pctOrNum(a.measures.daGyms, false)}</td>
              <td className="num">{pctOrNum(a.measures.caGyms, false)}</td>
              <td className="num">
                {a.daTrained.k}/{a.daTrained.n}
              </td>
              <td className="num">
                {a.nonMonotonic.k}/{a.nonMonotonic.n}
              </td>
              <td className="num">{pctOrNum(a.measures.wDaAfterCaGym, true)}</td>
              <td className="num">{pctOrNum(a.measures.wDaAfterDaGym, true)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted small" data-testid="study-heldout-note">
        Rates in %; mean [95% Student-t interval] over the seeds that finished.
        {!arenaOnly &&
          study.summary.heldoutEpisodes.length > 0 &&
          ` Each run's held-out figures: ${study.summary.heldoutEpisodes.join(' or ')} episodes per DA and opponent.`}
      </p>
      {!arenaOnly && <HeldoutScenarios arms={arms} />}
      {!arenaOnly && <HeldoutReach arms={arms} />}
      {!arenaOnly && study.summary.paired.length > 0 && (
        <>
          <h4>Paired differences against {study.summary.baseline} (same seeds)</h4>
          <table className="table" data-testid="study-paired">
            <thead>
              <tr>
                <th>Arm − {study.summary.baseline}</th>
                <th className="num">Pairs</th>
                {HELDOUT.map(([, l]) => (
                  <th key={l} className="num">
                    {l}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {study.summary.paired
                .filter((p) => shown.includes(p.a))
                .map((p) => (
                  <tr key={p.a}>
                    <td>
                      {p.a} − {p.b}
                    </td>
                    <td className="num">{p.measures[`${view}.routing`]?.n ?? 0}</td>
                    {HELDOUT.map(([k, , rate]) => (
                      <td key={k} className="num">
                        {pctOrNum(p.measures[`${view}.${k}`], rate)}
                      </td>
                    ))}
                  </tr>
                ))}
            </tbody>
          </table>
        </>
      )}
      <h4>The CA's tactic measures per match</h4>
      <div className="chart-grid">
        {TACTICS.map(([k, label, rate]) => (
          <div key={k}>
            <div className="small">{label}</div>
            <BandChart
              label={`${label} per match`}
              rate={rate}
              width={360}
              height={180}
              series={arms.map((a) => ({ name: a.arm, colour: colour(a.arm), points: a.tactics[k] }))}
            />
          </div>
        ))}
      </div>
      <h4>Which tactic the CA converged to</h4>
      <table className="table" data-testid="study-tactic">
        <thead>
          <tr>
            <th>Arm</th>
            <th>Last match (final CA)</th>
            <th>First match (CA0)</th>
            <th className="num">Seeds agreeing</th>
            <th>Example opening</th>
          </tr>
        </thead>
        <tbody>
          {arms.map((a) => {
            const t = a.tactic;
            const shares = (xs: { tactic: string; share: number }[]) =>
              xs
                .slice(0, 3)
                .map((x) => `${x.tactic} ${Math.round(x.share * 100)}%`)
                .join(', ');
            return (
              <tr key={a.arm}>
                <td>{a.arm}</td>
                <td>{t ? shares(t.last) : '–'}</td>
                <td>{t ? shares(t.first) : '–'}</td>
                <td className="num">{t?.converged ? `${t.seedsAgreeing.k}/${t.seedsAgreeing.n}` : '–'}</td>
                <td className="small">{t?.converged?.examples[0] ?? ''}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="hint">
        Rule-based tactic labels of the CA&apos;s arena openings pooled over seeds; seeds agreeing: those whose last match has the same dominant tactic.
      </p>
      <TacticEvidence arms={arms} />
      <h4>Per seed</h4>
      <div className="chart-grid" data-testid="study-per-seed">
        {study.seeds.map((seed) => (
          <div key={seed}>
            <div className="small">seed {seed}</div>
            <BandChart
              label={`W_DA per match, seed ${seed}`}
              rate
              tau={study.tauDa}
              width={280}
              height={160}
              series={study.runs
                .filter((r) => r.seed === seed && shown.includes(r.arm))
                .map((r) => ({ name: r.arm, colour: colour(r.arm), points: r.wDa.map((w) => ({ n: 1, mean: w, ci: null })) }))}
            />
          </div>
        ))}
      </div>
    </section>
  );
}

/**
 * `sparring study ca-policy S` on the Studies screen: how each arm's CA moved, head by head, from
 * the first match's openings (CA0) to the last's, over the study's finished seeds; read on request
 * (one forward pass of two CAs per run, nothing replayed).
 */
function StudyCaPolicy({ study }: { study: StudyDetail }) {
  const s = studyCaPolicy.use();
  const mine = s.key === study.id;
  const loading = mine && s.status === 'loading';
  const read = () => void studyCaPolicy.load(study.id);
  const finished = study.runs.some((r) => r.status === 'finished');
  const done = mine && s.status === 'done' ? s.view : null;
  const colour = (arm: string) => armColour(study, arm);
  return (
    <section className="panel" data-testid="study-ca-policy">
      <header className="panel-head row">
        <h3>
          <Term term="caPolicy">The CA&apos;s policy</Term>, first match → last
        </h3>
        <button type="button" className="btn tiny" onClick={read} disabled={loading || !finished} data-testid="study-ca-policy-read">
          {loading ? 'Reading…' : mine && s.status === 'done' ? 'Read again' : "Read the CAs' policies"}
        </button>
      </header>
      {!finished && <p className="muted small">Once a run of the study has finished.</p>}
      {mine && s.status === 'error' && (
        <ErrorState title="Could not read the CAs' policies" error={s.error ?? ''} actions={[{ label: 'Retry', onClick: read }]} />
      )}
      {done && (
        <>
          <p className="hint">
            Hollow: the first match (CA0); filled: the last, with its 95% interval over seeds as a bar.{' '}
            {done.map((a) => (
              <b key={a.arm} style={{ color: colour(a.arm) }}>
                ● {a.arm}{' '}
              </b>
            ))}
          </p>
          <div className="chart-grid" data-testid="study-ca-policy-charts">
            {[...new Set(done.flatMap((a) => a.rows.map((r) => r.head)))].map((h) => (
              <CaPolicyChart key={h} head={h} arms={done} colourOf={colour} />
            ))}
          </div>
          {done.map((a) => (
            <table key={a.arm} className="table compact" data-testid={`study-ca-policy-${a.arm}`}>
              <caption className="small">
                <b>{a.arm}</b> ({a.seeds.length} seed{a.seeds.length === 1 ? '' : 's'} finished): mean probability over a match&apos;s openings, mean [95% t]
                over seeds
              </caption>
              <thead>
                <tr>
                  <th>head</th>
                  <th>value</th>
                  <th className="num">first match (CA0)</th>
                  <th className="num">last match</th>
                  <th className="num">last − first</th>
                  <th className="num">seeds up / down</th>
                </tr>
              </thead>
              <tbody>
                {a.rows.map((r, i) => (
                  <tr key={`${r.head}/${r.value}`} data-head={r.head} data-value={r.value}>
                    <td>{i === 0 || a.rows[i - 1]!.head !== r.head ? r.head : ''}</td>
                    <td className="mono">{r.value === 'null' ? 'none' : r.value}</td>
                    <td className="num">{pctOrNum(r.first, false)}</td>
                    <td className="num">{pctOrNum(r.last, false)}</td>
                    <td className="num">{pctOrNum(r.change, false)}</td>
                    <td className="num">
                      {r.up} / {r.down} of {r.change.n}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
          <p className="hint">
            Each episode draws its customer&apos;s intent from the scenario&apos;s, so a CA that did not train (CA0 throughout) still reads a little differently
            over another match&apos;s openings.
          </p>
        </>
      )}
    </section>
  );
}

/** A figure of an estimate (points), with its interval; signed where it is a difference. */
const pts = (m: MeanInterval | undefined, signed: boolean) => {
  if (!m || !m.n) return '–';
  const f = (v: number) => {
    const s = fixed(v, 1);
    return signed && !s.startsWith('-') ? `+${s}` : s;
  };
  return meanText(m, f);
};

/**
 * The arena-only estimate of the held-out gain (`sparring study estimate`): each finished run's DA0
 * and final DA against its final CA on the arena scenarios, the CA speaking the run's train slice
 * or its validation slice; stored in the study, so settings can be chosen on it without reading
 * anything held out.
 */
function ArenaEstimate({ study }: { study: StudyDetail }) {
  const [chosen, setSpeak] = useState<EstimateSlice | null>(null);
  const [chosenSet, setScenarios] = useState<EstimateScenarios | null>(null);
  const busy = useStudiesStore(selectEstimating(study.id));
  const scenarios = chosenSet ?? busy?.scenarios ?? 'arena';
  const stored = scenarios === 'arena' ? study.arenaEstimate : study.otherIntentsEstimate;
  // Until one is chosen: the slice being estimated, else one with an estimate stored (train first).
  const speak = chosen ?? busy?.speak ?? (stored.train || !stored.validation ? 'train' : 'validation');
  const error = useStudiesStore(selectEstimateError(study.id));
  const now = useNow(!!busy);
  const [started, setStarted] = useState<number | null>(null);
  if (busy && started === null) setStarted(now);
  if (!busy && started !== null) setStarted(null);
  const shown = stored[speak];
  const finished = study.runs.filter((r) => r.status === 'finished').length;
  return (
    <section className="panel" data-testid="study-estimate">
      <header className="panel-head">
        <h3>Arena-only estimate of the held-out gain</h3>
        <span>
          <select
            value={speak}
            onChange={(e) => setSpeak(e.target.value as EstimateSlice)}
            data-testid="estimate-speak"
            aria-label="the bank slice the CA speaks"
          >
            <option value="train">CA speaks the train slice</option>
            <option value="validation">CA speaks the validation slice</option>
          </select>{' '}
          <select
            value={scenarios}
            onChange={(e) => setScenarios(e.target.value as EstimateScenarios)}
            data-testid="estimate-scenarios-set"
            aria-label="the scenarios the estimate's matches play"
          >
            <option value="arena">on the arena scenarios</option>
            <option value="other-intents">on the intents beyond the arena</option>
          </select>{' '}
          <button className="btn tiny" disabled={!!busy || !finished} onClick={() => void estimateStudy(study.id, speak, scenarios)} data-testid="estimate-run">
            {shown ? 'Estimate new runs' : 'Estimate'}
          </button>
        </span>
      </header>
      <p className="muted small">
        Each finished run&apos;s DA0 and final DA play its final CA on the arena scenarios, as the run&apos;s own matches play (seed 1000 + the run&apos;s
        seed), or on synthetic scenarios of the intents no arena, held-out or gym scenario names (8 episodes each): how far the gains reach intents no gym
        trained on, which held-out evaluation also tests. Nothing held out is read, so settings can be chosen on it. Points, mean [95% t] over seeds; the gain
        paired against {shown?.baseline ?? 'the first arm'}.
      </p>
      {busy && (
        <div data-testid="estimate-progress">
          <ProgressBar
            label={`runs estimated${busy.scenarios === 'other-intents' ? ' beyond the arena' : ''}, CA speaking the ${busy.speak} slice${busy.label ? ` — ${busy.label}` : ''}`}
            done={busy.done}
            total={Math.max(busy.total, 1)}
            etaSeconds={started === null ? null : etaFrom(started, now, busy.done, busy.total)}
          />
        </div>
      )}
      {error && (
        <div className="inline-error" role="alert" data-testid="estimate-error">
          {error}
        </div>
      )}
      {shown ? (
        <table className="table" data-testid="estimate-table">
          <thead>
            <tr>
              <th>Arm</th>
              <th>Measure</th>
              <th className="num">Seeds</th>
              <th className="num">DA0</th>
              <th className="num">Final DA</th>
              <th className="num">Gain</th>
              <th className="num">Gain − {shown.baseline} (paired)</th>
            </tr>
          </thead>
          <tbody>
            {shown.arms.flatMap((a) =>
              (['routing', 'strictPass'] as const).map((k) => (
                <tr key={`${a.arm}/${k}`}>
                  <td>{a.arm}</td>
                  <td>{k === 'routing' ? 'routing' : 'strict PASS'}</td>
                  <td className="num">{a.seeds}</td>
                  <td className="num">{pts(a[k].da0, false)}</td>
                  <td className="num">{pts(a[k].final, false)}</td>
                  <td className="num">{pts(a[k].gain, true)}</td>
                  <td className="num">{a[k].gainVsBaseline ? pts(a[k].gainVsBaseline, true) : '(baseline)'}</td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      ) : null}
      {shown && <EstimateScenarios tables={shown} />}
      {!shown && !busy && (
        <EmptyState title="No estimate stored for this slice" testId="estimate-empty">
          {finished ? 'Estimate plays two arena matches per finished run.' : 'No run of this study has finished yet.'}
        </EmptyState>
      )}
    </section>
  );
}

/**
 * The estimate's routing per arena scenario: DA0 → final DA for the first arm, each arm's gain
 * (mean [95% t] over seeds): which scenarios the gain comes from and which it leaves behind. The
 * same table as `study estimate` (estimateScenarioView).
 */
function EstimateScenarios({ tables }: { tables: EstimateTables }) {
  return (
    <ScenarioGainTable
      title={tables.scenarios === 'other-intents' ? 'Routing per scenario of the other intents' : 'Routing per arena scenario'}
      testId="estimate-scenarios"
      gainLabel="gain"
      arms={tables.arms}
      figure={(m) => pts(m, true)}
      level={(v) => fixed(v, 1)}
    />
  );
}

/** Any two runs of the lab, W_DA per match overlaid (not only runs of one study). */
function RunOverlay() {
  const runs = useRunsStore(selectRuns);
  const details = useStudiesStore(selectOverlayRuns);
  const error = useStudiesStore(selectOverlayError);
  const [a, setA] = useState('');
  const [b, setB] = useState('');
  useEffect(() => {
    for (const id of [a, b]) if (id) void loadOverlayRun(id);
  }, [a, b]);
  const series = useMemo(
    () =>
      [a, b].flatMap((id, i) =>
        id && details[id]
          ? [
              {
                name: `${id} (${details[id].preset || 'custom'}, seed ${details[id].seed})`,
                colour: SERIES_COLOURS[i]!,
                points: details[id].matchSummaries.map((m) => ({ n: 1, mean: m.wDa, ci: null })),
              },
            ]
          : [],
      ),
    [a, b, details],
  );
  return (
    <section className="panel" data-testid="run-overlay">
      <header className="panel-head">
        <h3>Overlay two runs</h3>
      </header>
      <div className="form-row">
        {[
          ['Run A', a, setA],
          ['Run B', b, setB],
        ].map(([label, value, set]) => (
          <label key={label as string}>
            {label as string}
            <select
              value={value as string}
              onChange={(e) => (set as (v: string) => void)(e.target.value)}
              data-testid={`overlay-${(label as string).slice(-1).toLowerCase()}`}
              className="identity-select"
            >
              <option value="">—</option>
              {runs.map((r) => (
                <option key={r.id} value={r.id}>
                  {runOptionLabel(r)}
                </option>
              ))}
            </select>
          </label>
        ))}
      </div>
      {a && <RunIdentity runId={a} testId="overlay-a-identity" />}
      {b && <RunIdentity runId={b} testId="overlay-b-identity" />}
      {error && <div className="inline-error">{error}</div>}
      {series.length > 0 ? (
        <BandChart label="W_DA per match of two runs" testId="overlay-chart" rate series={series} />
      ) : (
        <p className="muted small">Choose two runs to overlay their W_DA per match.</p>
      )}
    </section>
  );
}
