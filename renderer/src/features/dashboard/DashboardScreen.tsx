/** One co-evolution run, live: phases, win rates against the stopping rule, scenarios, gym curves. */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { GrpoSettingsView, RunDetail, RunSummary } from '../../../../core/contract/contract';
import { Badge } from '../../components/Badge';
import { ChartFrame } from '../../components/ChartFrame';
import { Term } from '../../components/Term';
import { ProgressBar } from '../../components/ProgressBar';
import { EmptyState, ErrorState, LoadingState } from '../../components/StateViews';
import { useChart } from '../../charts/use-chart';
import { selectRunsUnavailable, useEngineStore } from '../../engine/engine-store';
import { navigate } from '../../nav/nav-store';
import {
  loadRun,
  loadRuns,
  refreshMatchRecords,
  runCommand,
  selectCommandBusy,
  selectCommandError,
  selectDetail,
  selectDetailError,
  selectDetailStatus,
  selectMatchRecords,
  selectMetrics,
  useRunsStore,
} from '../runs/runs-store';
import { useSelectedRun } from '../runs/use-selected-run';
import { selectRunMatch, selectSelectedMatchOf, useDashboardStore } from './dashboard-store';
import { createGymCurvesChart } from './create-gym-curves-chart';
import { createPhaseTimelineChart } from './create-phase-timeline-chart';
import { createScenarioBarsChart } from './create-scenario-bars-chart';
import { createWinRateChart } from './create-win-rate-chart';
import { gymPanels } from './gym-curves.data';
import { phaseSegments } from './phase-timeline.data';
import { scenarioBars } from './scenario-bars.data';
import { winRateData } from './win-rate.data';
import { deviceLabel } from '../experiments/device-choice';
import { KnobConsole } from '../knobs/KnobConsole';
import { llmJudgeOf, llmRoleOf, managedTrainerOf } from '../experiments/llm-roles';
import { errorMessage, request } from '../../engine/client';
import { llmCost, prettyJson } from '../../format';
import type { LlmCallTotals } from '../../../../core/contract/contract';
import { runOptionLabel } from '../runs/run-identity';
import { RunIdentity } from '../runs/RunIdentity';

/** The dashboard shows the newest run unless the route names one. */
const newestRun = (runs: readonly RunSummary[]) => runs.at(-1)?.id ?? null;

export function DashboardScreen() {
  const { runId, runs, status: runsStatus, error: runsError } = useSelectedRun(newestRun);
  const unavailable = useEngineStore(selectRunsUnavailable);

  let body;
  if (runId) body = <RunView runId={runId} />;
  else if (runsStatus === 'loading' || runsStatus === 'idle') body = <LoadingState label="Loading runs…" />;
  else if (runsStatus === 'error')
    body = <ErrorState title="Could not load runs" error={runsError ?? ''} actions={[{ label: 'Retry', onClick: () => void loadRuns() }]} />;
  else
    body = (
      <div className="panel">
        <EmptyState
          title="No run to show"
          testId="dashboard-empty"
          actions={[
            ...(unavailable ? [] : [{ label: 'Start a run', onClick: () => navigate('experiments') }]),
            { label: 'Play an arena match', onClick: () => navigate('arena') },
          ]}
        >
          {unavailable ? (
            <>
              Co-evolution runs are not available in this build (<span className="mono">{unavailable}</span>). The Arena plays single matches and their
              transcripts are browsable.
            </>
          ) : (
            'Start a co-evolution run from a preset; its matches, gyms and the stopping rule show here live.'
          )}
        </EmptyState>
      </div>
    );

  return (
    <div className="screen" data-testid="screen-dashboard">
      <header className="screen-head row">
        <h1>Run dashboard</h1>
        {runs.length > 0 && (
          <select className="identity-select" value={runId ?? ''} onChange={(e) => navigate('runs', e.target.value)} aria-label="Run" data-testid="run-picker">
            {[...runs].reverse().map((r) => (
              <option key={r.id} value={r.id}>
                {runOptionLabel(r)}
                {r.status === 'finished' ? ' · finished' : ''}
              </option>
            ))}
          </select>
        )}
      </header>
      {runId && <RunIdentity runId={runId} testId="dashboard-run-identity" />}
      {body}
    </div>
  );
}

function RunView({ runId }: { runId: string }) {
  const detail = useRunsStore(selectDetail(runId));
  const status = useRunsStore(selectDetailStatus(runId));
  const error = useRunsStore(selectDetailError(runId));
  if (!detail && (status === 'loading' || status === 'idle')) return <LoadingState label={`Loading ${runId}…`} />;
  if (!detail)
    return (
      <ErrorState
        title={`Could not open run ${runId}`}
        error={error ?? 'unknown error'}
        actions={[
          { label: 'Retry', onClick: () => void loadRun(runId) },
          { label: 'Back to experiments', onClick: () => navigate('experiments') },
        ]}
      />
    );
  return <RunDashboard d={detail} />;
}

/**
 * Gyms handed to an external trainer (run config gym.da.trainer / gym.ca.trainer "external"): while
 * the run waits, where the gym was exported and what to run; then every job and how it ended. A
 * managed trainer's job (`{"kind": "trl", …}`) needs no one: while it trains, where its log is.
 */
/** The gym job the run waits on, and the managed trainer training it ('' when a person must run it). */
function openGymJob(d: RunDetail) {
  const open = d.phase === 'waiting-for-trainer' ? (d.gymJobs ?? []).find((j) => j.status === 'waiting') : undefined;
  return { open, managed: open ? managedTrainerOf(d.configJson, open.role === 'DA' ? 'da' : 'ca') : '' };
}

function GymJobs({ d }: { d: RunDetail }) {
  const jobs = d.gymJobs ?? [];
  const { open, managed } = openGymJob(d);
  const waiting = managed ? undefined : open;
  return (
    <div className="gym-jobs small" data-testid="gym-jobs">
      {open && managed && (
        <div className="waiting-trainer" data-testid="managed-trainer">
          <b>
            Training with the managed {managed} trainer: gym {open.role}
            {open.gym}
          </b>{' '}
          ({open.from} against frozen {open.opponent}, job {open.id}), log at <span className="mono">{`${open.exportPath}/trainer.log`}</span>. Its steps stream
          into the gym curves; the run goes on by itself when it ends.
        </div>
      )}
      {waiting && (
        <div className="waiting-trainer" data-testid="waiting-trainer">
          <b>
            Waiting for an external trainer: gym {waiting.role}
            {waiting.gym}
          </b>{' '}
          ({waiting.from} against frozen {waiting.opponent}, job {waiting.id}), export at <span className="mono">{waiting.exportPath}</span>. Run:
          <pre className="mono" data-testid="waiting-trainer-commands">
            {(waiting.commands ?? []).join('\n')}
          </pre>
          <span className="muted">
            or end the wait with <span className="mono">npx sparring gym cancel {waiting.id}</span> (the run keeps {waiting.from}).
          </span>
        </div>
      )}
      <table className="table" data-testid="gym-jobs-table">
        <thead>
          <tr>
            <th>job</th>
            <th>gym</th>
            <th>from</th>
            <th>opponent</th>
            <th>status</th>
            <th>checkpoint</th>
            <th>export</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((j) => (
            <tr key={j.id} data-job={j.id}>
              <td className="mono">{j.id}</td>
              <td>
                {j.role}
                {j.gym}
              </td>
              <td>{j.from}</td>
              <td>{j.opponent}</td>
              <td>{managed && j.id === open?.id ? `training (${managed})` : j.status}</td>
              <td>{j.checkpoint ?? j.note ?? '–'}</td>
              <td className="mono">{j.exportPath}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const STATUS_TONE = { created: 'neutral', running: 'da', paused: 'warn', finished: 'ok', failed: 'bad', stopped: 'neutral' } as const;

const PAIRING_LABEL = { 'both-current': 'both current', 'historical-ca': 'DA vs a past CA', 'historical-da': 'a past DA vs CA' } as const;

/** IB-RL runs: per round, the opponent pool's draw (who played the joint rollouts) and both roles' updates. */
function IbRlRounds({ d }: { d: RunDetail }) {
  const rounds = d.matchSummaries.filter((m) => m.pool);
  if (!rounds.length) return null;
  return (
    <section className="panel" data-testid="ib-rl-rounds">
      <header className="panel-head">
        <h3>IB-RL rounds</h3>
      </header>
      <table className="table">
        <thead>
          <tr>
            <th className="num">Round</th>
            <th>Pool draw</th>
            <th>Joint rollouts</th>
            <th>DA update</th>
            <th>CA update</th>
          </tr>
        </thead>
        <tbody>
          {rounds.map((m) => {
            const p = m.pool!;
            const update = (role: 'DA' | 'CA') => {
              const g = d.gyms.find((x) => x.role === role && x.afterMatch === m.index);
              if (g) return `${g.from} → ${g.to} (vs ${g.pool?.opponent ?? '?'})`;
              if (p.trains.includes(role)) return (m.gyms ?? p.trains).includes(role) ? 'pending' : 'skipped (an LLM: no trainer for it)';
              return p.trainable.includes(role) ? 'skipped (stagger)' : 'frozen (pool)';
            };
            return (
              <tr key={m.matchId} data-round={p.round}>
                <td className="num">{p.round}</td>
                <td>
                  {PAIRING_LABEL[p.pairing]}
                  {p.noHistory ? <span className="muted"> (no past {p.noHistory} yet)</span> : null}
                </td>
                <td className="mono">
                  {p.da} vs {p.ca}
                </td>
                <td className="mono">{update('DA')}</td>
                <td className="mono">{update('CA')}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

function RunDashboard({ d }: { d: RunDetail }) {
  const busy = useRunsStore(selectCommandBusy(d.id));
  const commandError = useRunsStore(selectCommandError(d.id));
  const [confirmStop, setConfirmStop] = useState(false);
  const last = [...d.matchSummaries].sort((a, b) => a.index - b.index).at(-1);
  const active = d.status === 'running' || d.status === 'created';
  // A pause takes effect at the next phase boundary, which can be a while: say it is coming.
  const pausing = active && d.pauseRequested;
  // "waiting-for-trainer" is the engine's phase for any gym trained outside the run; a managed
  // trainer needs no one, so the header does not say the run is waiting.
  const { managed } = openGymJob(d);
  const phase = managed ? `gym (managed ${managed} trainer)` : d.phase;
  return (
    <>
      <section className="panel run-head" data-testid="run-head">
        <div className="run-title">
          <h2 className="mono">{d.id}</h2>
          <Badge tone={STATUS_TONE[d.status]}>{d.status}</Badge>

          <span className="muted">
            phase <b>{phase}</b> · preset {d.preset} · seed {d.seed} · {d.matches} match{d.matches === 1 ? '' : 'es'} ·{' '}
            <span title={d.device?.reason} data-testid="run-device">
              device {deviceLabel(d.device)}
            </span>
          </span>
        </div>
        <div className="run-controls">
          {pausing && (
            <span className="pausing-note" data-testid="run-pausing" title="The run pauses when the current phase ends; its work so far is kept.">
              pausing after this phase
            </span>
          )}
          {active && (
            <button
              className="btn"
              disabled={busy || pausing}
              onClick={() => void runCommand(d.id, 'pause')}
              data-testid="run-pause"
              title={pausing ? 'A pause is asked for; it takes effect when this phase ends' : 'Pause when the current phase ends'}
            >
              {pausing ? 'Pausing…' : 'Pause'}
            </button>
          )}
          {d.status === 'paused' && (
            <button className="btn primary" disabled={busy} onClick={() => void runCommand(d.id, 'resume')} data-testid="run-resume">
              Resume
            </button>
          )}
          {(active || d.status === 'paused') &&
            (confirmStop ? (
              <>
                <button
                  className="btn danger"
                  disabled={busy}
                  onClick={() => (setConfirmStop(false), void runCommand(d.id, 'stop'))}
                  data-testid="run-stop-confirm"
                >
                  Stop the run for good
                </button>
                <button className="btn" onClick={() => setConfirmStop(false)}>
                  Keep running
                </button>
              </>
            ) : (
              <button className="btn" disabled={busy} onClick={() => setConfirmStop(true)} data-testid="run-stop">
                Stop…
              </button>
            ))}
        </div>
        {commandError && (
          <div className="inline-error">
            {commandError}
            {d.status === 'running' && (
              <>
                {' '}
                — a run interrupted by a restart continues with{' '}
                <button className="btn tiny" onClick={() => void runCommand(d.id, 'resume')}>
                  Resume
                </button>
              </>
            )}
          </div>
        )}
        {d.error && <div className="inline-error">The run failed: {d.error}</div>}
        {d.progress && active && d.progress.phase === d.phase && (
          <ProgressBar label={d.progress.label} done={d.progress.done} total={d.progress.total} etaSeconds={d.progress.etaSeconds} />
        )}
        <div className="verdict" data-testid="stop-verdict">
          {last ? (
            <>
              <b>Stopping rule:</b> {last.stop.explanation}
              {last.pool ? <div className="muted">{last.scheduleNote}</div> : last.next && <div className="muted">{last.next.explanation}</div>}
            </>
          ) : (
            <span className="muted">The stopping rule is judged after each match; no match has finished yet.</span>
          )}
        </div>
        {d.matchSummaries.some((m) => m.arms) && <CustomerArms d={d} />}
        <LlmRoles d={d} />
        {d.gyms.some((g) => g.note) && (
          <ul className="gym-notes small" data-testid="gym-notes">
            {d.gyms
              .filter((g) => g.note)
              .map((g) => (
                <li key={`${g.afterMatch}-${g.role}-${g.to}`} data-gym={g.to}>
                  <b>{g.to}</b> (gym after match {g.afterMatch}): {g.note}
                </li>
              ))}
          </ul>
        )}
        {d.gymJobs && <GymJobs d={d} />}
        <RunSettingsPanel d={d} />
      </section>
      <PhaseTimeline d={d} />
      <IbRlRounds d={d} />
      <div className="two-col">
        <WinRates d={d} />
        <ScenarioPanel d={d} />
      </div>
      <GymCurves runId={d.id} />
      <KnobConsole runId={d.id} status={d.status} />
    </>
  );
}

/** GrpoSettingsView's rows, in reading order: what each means beside its key. */
const GRPO_ROWS: readonly [keyof GrpoSettingsView, string][] = [
  ['steps', 'steps'],
  ['promptsPerStep', 'decision points per step'],
  ['K', 'K: actions sampled per point'],
  ['temperature', 'T: sampling temperature'],
  ['lr', 'learning rate'],
  ['lrSchedule', 'lr schedule'],
  ['klBeta', 'β: KL to the reference'],
  ['clipEps', 'ε: clip of the ratio'],
  ['oversample', 'oversample (DAPO)'],
  ['entropyCoef', 'entropy bonus'],
  ['explore', 'ε-greedy exploration'],
  ['enumerate', 'every valid action tried'],
  ['maxKl', 'trust region (nats)'],
  ['maxPasses', 'passes at most'],
  ['trainer', 'trained by'],
];

/**
 * What the run runs with, as the host resolves its config (every default spelled out): GRPO per
 * phase, the gym's failure share, and the reward weights; the stored config itself below.
 */
function RunSettingsPanel({ d }: { d: RunDetail }) {
  const s = d.settings;
  const cell = (v: string | number | boolean | null) =>
    v === null ? '–' : typeof v === 'boolean' ? (v ? 'yes' : 'no') : typeof v === 'number' ? String(Number(v.toPrecision(4))) : v;
  return (
    <details className="small" data-testid="run-settings">
      <summary>Settings this run runs with</summary>
      {s ? (
        <>
          <table className="table" data-testid="run-settings-grpo">
            <thead>
              <tr>
                <th>GRPO</th>
                {s.grpo.map((g) => (
                  <th key={g.phase} className="num">
                    {g.phase}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {GRPO_ROWS.map(([k, label]) => (
                <tr key={k} data-setting={k}>
                  <td>{label}</td>
                  {s.grpo.map((g) => (
                    <td key={g.phase} className="num">
                      {cell(g[k])}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          <p>
            Gym data: {Math.round(s.failureShare * 100)}:{Math.round((1 - s.failureShare) * 100)} failure:success transcripts{' '}
            {s.gymMatches === 1 ? 'of the latest match' : `of the latest ${s.gymMatches} matches`}
            {s.daFailure === 'unresolved' ? ' (the DA’s failures: episodes it lost or left unresolved)' : ''}
            {s.caDecisions === 'openings' ? '; the CA’s gyms train on its openings only' : ''}
            {s.daOtherIntents > 0 ? `; each DA gym also plays ${s.daOtherIntents} episodes per intent beyond the arena` : ''}. Stopping: τ_DA {d.stopping.tauDa}
            , P {d.stopping.P}, ε {d.stopping.epsilon}, n_min {d.stopping.nMin}, n_max {d.stopping.nMax}.
          </p>
          <table className="table" data-testid="run-settings-rewards">
            <tbody>
              {(
                [
                  ['r_DA weights', s.daReward],
                  ['r_CA weights', s.caReward],
                ] as const
              ).map(([label, w]) => (
                <tr key={label}>
                  <td>{label}</td>
                  <td className="mono">
                    {Object.entries(w)
                      .map(([k, v]) => `${k} ${v}`)
                      .join(' · ')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="muted">Knob writes (the knob console, EAU) change K, lr, β and ε of later gym steps; these are the config&apos;s.</p>
        </>
      ) : (
        <p className="muted">This run&apos;s stored config no longer parses under this version; its JSON is below as stored.</p>
      )}
      <details>
        <summary>The config as stored</summary>
        <pre className="mono" data-testid="run-settings-config">
          {prettyJson(d.configJson)}
        </pre>
      </details>
    </details>
  );
}

/**
 * W_DA per customer arm under the symbolic-user mix ε (EAU): the rule-based customer and the
 * learned CA, beside the blend the chart shows. EAU's appendix: a blend can hide a large gap.
 */
function CustomerArms({ d }: { d: RunDetail }) {
  const pct = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);
  return (
    <ul className="gym-notes small" data-testid="customer-arms">
      {[...d.matchSummaries]
        .sort((a, b) => a.index - b.index)
        .flatMap((m) => {
          if (!m.arms) return [];
          const { symbolic, learned } = m.arms;
          const gap = symbolic.wDa === null || learned.wDa === null ? null : symbolic.wDa - learned.wDa;
          return [
            <li key={m.matchId} data-match={m.matchId}>
              <b>match {m.index}</b> W_DA {pct(m.wDa)} (blend) · symbolic customer {pct(symbolic.wDa)} (n {symbolic.winnable}) · learned CA {pct(learned.wDa)}{' '}
              (n {learned.winnable}){gap !== null && ` · gap ${gap >= 0 ? '+' : ''}${(gap * 100).toFixed(1)} pts`}
            </li>,
          ];
        })}
    </ul>
  );
}

export function PhaseTimeline({ d }: { d: RunDetail }) {
  // Progress reports replace `d` several times a second; redraw only when the phases change.
  const { phase, status, matchSummaries, gyms } = d;
  const data = useMemo(() => phaseSegments({ phase, status, matchSummaries, gyms }), [phase, status, matchSummaries, gyms]);
  const ref = useChart(createPhaseTimelineChart, data, {});
  return (
    <ChartFrame title={`Phases · run ${d.id}`} file={`phases-${d.id}`}>
      <div ref={ref} className="chart" data-testid="phase-timeline" />
    </ChartFrame>
  );
}

export function WinRates({ d }: { d: RunDetail }) {
  const selected = useDashboardStore(selectSelectedMatchOf(d.id));
  const { matchSummaries, gyms, stopping, phase } = d;
  const data = useMemo(
    () => ({ ...winRateData(matchSummaries, gyms, stopping, phase), selectedMatchId: selected ?? matchSummaries.at(-1)?.matchId ?? null }),
    [matchSummaries, gyms, stopping, phase, selected],
  );
  const ref = useChart(createWinRateChart, data, { onSelectMatch: (matchId: string) => selectRunMatch(d.id, matchId) });
  return (
    <ChartFrame title={`W_DA and W_CA per match · run ${d.id}`} file={`win-rates-${d.id}`}>
      {d.matchSummaries.length === 0 ? (
        <EmptyState title="No match yet">The first arena match starts after bootstrap; its point appears here when it ends.</EmptyState>
      ) : null}
      <div ref={ref} className="chart" data-testid="win-rate-chart" hidden={d.matchSummaries.length === 0} />
      <p className="hint">
        Filled dot: the DA reached <Term term="tauDa">τ_DA</Term> in that match. Whiskers: the window of ±ε around the previous match’s W_DA; green when the
        match stayed inside it (the two agents are stable). Shaded: <Term term="gym">gyms</Term>, in the colour of the agent trained. Click a match for its
        scenarios.
      </p>
    </ChartFrame>
  );
}

export function ScenarioPanel({ d }: { d: RunDetail }) {
  const selected = useDashboardStore(selectSelectedMatchOf(d.id));
  const records = useRunsStore(selectMatchRecords(d.id));
  const matchId = selected ?? d.matchSummaries.at(-1)?.matchId ?? null;
  const match = records?.find((m) => m.id === matchId) ?? null;
  // A match announced by an event may be read before the lab has it; ask again, once per match.
  const asked = useRef<string | null>(null);
  useEffect(() => {
    if (matchId && records && !match && asked.current !== matchId) {
      asked.current = matchId;
      void refreshMatchRecords(d.id);
    }
  }, [matchId, records, match, d.id]);
  const data = useMemo(() => ({ bars: scenarioBars(match), tau: d.stopping.tauDa }), [match, d.stopping.tauDa]);
  const ref = useChart(createScenarioBarsChart, data, {
    onSelectScenario: (scenarioId: string) => matchId && navigate('transcripts', null, { match: matchId, scenario: scenarioId }),
  });
  return (
    <ChartFrame title={`Win rate per scenario · ${matchId ? `match ${matchId}` : `run ${d.id}`}`} file={`scenarios-${matchId ?? d.id}`}>
      {!match &&
        (matchId ? (
          <LoadingState label={`Loading ${matchId}…`} />
        ) : (
          <EmptyState title="No match yet">Per-scenario DA win rates of the selected match show here.</EmptyState>
        ))}
      <div ref={ref} className="chart" hidden={!match} />
    </ChartFrame>
  );
}

export function GymCurves({ runId }: { runId: string }) {
  const series = useRunsStore(selectMetrics(runId));
  const [smoothing, setSmoothing] = useState(0.6);
  const panels = useMemo(() => gymPanels(series, smoothing), [series, smoothing]);
  const ref = useChart(createGymCurvesChart, panels, {});
  const empty = panels.every((p) => p.segments.length === 0);
  return (
    <ChartFrame
      title={`Gym curves · run ${runId}`}
      file={`gym-curves-${runId}`}
      aside={
        <label className="inline small">
          smoothing {smoothing.toFixed(2)}
          <input type="range" min={0} max={0.99} step={0.01} value={smoothing} onChange={(e) => setSmoothing(e.target.valueAsNumber)} data-testid="smoothing" />
        </label>
      }
    >
      {empty && <EmptyState title="No gym steps yet">GRPO updates of the isolation gyms (reward, KL, loss) stream here while a gym trains.</EmptyState>}
      <div ref={ref} className="chart" hidden={empty} />
    </ChartFrame>
  );
}

/**
 * The run's roles played by LLMs — config schedule.llm, a role whose current checkpoint is an LLM
 * an external trainer handed back (its gym's `llm`), and an LLM `judge` — and what their calls cost
 * so far: the sum over the run's matches (`matches/list` carries each match's LLM totals, the
 * judge's calls included). Nothing without LLM roles.
 */
function LlmRoles({ d }: { d: RunDetail }) {
  const configured = (['da', 'ca'] as const).flatMap((r) =>
    llmRoleOf(d.configJson, r) ? [`${r.toUpperCase()}: ${llmRoleOf(d.configJson, r)} (its gyms are skipped: no external trainer is attached)`] : [],
  );
  const handedBack = (['DA', 'CA'] as const).flatMap((r) => {
    const g = d.gyms.filter((x) => x.role === r).at(-1);
    const managed = managedTrainerOf(d.configJson, r === 'DA' ? 'da' : 'ca');
    return g?.llm ? [`${r}: ${g.to} = ${g.llm} (${managed ? `trained by the managed ${managed} trainer` : 'handed back by an external trainer'})`] : [];
  });
  const judge = llmJudgeOf(d.configJson);
  const roles = [...configured, ...handedBack, ...(judge ? [`judge: ${judge}`] : [])];
  const [cost, setCost] = useState<LlmCallTotals | null>(null);
  const [error, setError] = useState<string | null>(null);
  const matches = d.matchSummaries.length;
  useEffect(() => {
    if (roles.length === 0 || matches === 0) return;
    let live = true;
    request('matches/list', { runId: d.id })
      .then((ms) => {
        if (!live) return;
        const sum: LlmCallTotals = { calls: 0, cached: 0, tokensIn: 0, tokensOut: 0, latencyMs: 0 };
        const keys = ['calls', 'cached', 'tokensIn', 'tokensOut', 'latencyMs'] as const;
        for (const m of ms) for (const k of keys) sum[k] += m.llm?.[k] ?? 0;
        setCost(sum);
      })
      .catch((e: unknown) => live && setError(errorMessage(e)));
    return () => {
      live = false;
    };
  }, [d.id, matches, roles.length]);
  if (roles.length === 0) return null;
  return (
    <div className="muted small" data-testid="run-llm-roles">
      <b>Played by LLMs:</b> {roles.join('; ')}
      {judge && <span data-testid="run-llm-judge"> (the judge of every episode, gym rollout and evaluation)</span>}
      {cost && cost.calls > 0 && (
        <>
          {' '}
          · matches so far: {cost.calls} calls, {llmCost(cost)}
        </>
      )}
      {error && <span className="bad-text"> · {error}</span>}
    </div>
  );
}
