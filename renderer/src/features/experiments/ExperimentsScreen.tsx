/** Start a co-evolution run from a preset (its config editable as JSON), and reopen recent runs. */
import { Fragment, useEffect, useMemo } from 'react';
import { Badge } from '../../components/Badge';
import { EmptyState, ErrorState, LoadingState } from '../../components/StateViews';
import { formatTime } from '../../format';
import { selectRunsUnavailable, useEngineStore } from '../../engine/engine-store';
import { navigate } from '../../nav/nav-store';
import { loadRuns, selectRuns, selectRunsError, selectRunsStatus, useRunsStore } from '../runs/runs-store';
import { checkConfigText, seedProblem } from './config-check';
import { presetTimeText } from './preset-time';
import type { ProviderChoice } from '../../../../core/contract/device';
import { DEVICE_LABELS, deviceLabel, deviceOf, withDevice } from './device-choice';
import { llmRoleOf, withLlmRole } from './llm-roles';
import { corpusLabel, corpusOf, withCorpus } from './corpus-choice';
import { loadModels, selectModels, useModelsStore } from '../lab-models/models-store';
import { POOL_LABELS, poolOf, scheduleOf, withPoolValue, withSchedule } from './schedule-choice';
import type { Pool, PoolKey, ScheduleKind } from './schedule-choice';
import {
  choosePreset,
  editConfig,
  loadCorpora,
  loadPresets,
  resetConfig,
  selectConfigText,
  selectPreset,
  selectPresets,
  selectPresetsError,
  selectPresetsStatus,
  selectArenaOnly,
  selectCorpora,
  selectSeed,
  selectStartError,
  selectStarting,
  setArenaOnly,
  setSeed,
  startRun,
  useExperimentsStore,
} from './experiments-store';

export function ExperimentsScreen() {
  useEffect(() => {
    void loadPresets();
    void loadRuns();
  }, []);
  return (
    <div className="screen" data-testid="screen-experiments">
      <header className="screen-head">
        <h1>Experiments</h1>
        <p className="lede">
          A run bootstraps DA0 and CA0, then alternates arena matches with isolation gyms for the weaker agent (or, with the IB-RL schedule, gyms for both
          roles) until the stopping rule holds.
        </p>
      </header>
      <div className="two-col">
        <NewRun />
        <RecentRuns />
      </div>
    </div>
  );
}

function NewRun() {
  const unavailable = useEngineStore(selectRunsUnavailable);
  const presets = useExperimentsStore(selectPresets);
  const status = useExperimentsStore(selectPresetsStatus);
  const error = useExperimentsStore(selectPresetsError);
  const preset = useExperimentsStore(selectPreset);
  const text = useExperimentsStore(selectConfigText);
  const models = useModelsStore(selectModels);
  const corpora = useExperimentsStore(selectCorpora);
  useEffect(() => {
    void loadModels();
    void loadCorpora();
  }, []);
  /** The lab's models, and the one the config names even when the lab has no such model (the engine says so at start). */
  const llmModels = (current: string) => [...new Set([...models.map((m) => m.name), ...(current ? [current] : [])])];
  const seed = useExperimentsStore(selectSeed);
  const arenaOnly = useExperimentsStore(selectArenaOnly);
  const badSeed = seedProblem(seed);
  const starting = useExperimentsStore(selectStarting);
  const startError = useExperimentsStore(selectStartError);
  const check = useMemo(() => checkConfigText(text), [text]);
  const schedule = scheduleOf(text);
  // The engine's IB-RL pool (core/presets.ts, through the contract); every preset carries the same one.
  const defaultPool: Pool | undefined = presets.find((p) => p.name === preset)?.ibRlPool;
  const pool = { ...defaultPool, ...poolOf(text) };

  const start = async () => {
    const runId = await startRun();
    if (runId) navigate('runs', runId);
  };

  let body;
  if (status === 'loading' || status === 'idle') body = <LoadingState label="Loading presets…" />;
  else if (status === 'error')
    body = <ErrorState title="Could not load the presets" error={error ?? ''} actions={[{ label: 'Retry', onClick: () => void loadPresets() }]} />;
  else if (presets.length === 0)
    body = (
      <EmptyState
        title={unavailable ? 'Co-evolution runs are not available in this build' : 'No presets'}
        testId="runs-unavailable"
        actions={[
          { label: 'Play an arena match', onClick: () => navigate('arena') },
          { label: 'Browse transcripts', onClick: () => navigate('transcripts') },
        ]}
      >
        {unavailable ? (
          <>
            The engine says: <span className="mono">{unavailable}</span>. Everything else works: play matches between any DA and CA in the Arena, read and
            export their transcripts.
          </>
        ) : (
          'The engine offers no presets to start from.'
        )}
      </EmptyState>
    );
  else
    body = (
      <>
        <div className="preset-picker" role="radiogroup" aria-label="Preset">
          {presets.map((p) => (
            <button
              key={p.name}
              role="radio"
              aria-checked={p.name === preset}
              className={`preset${p.name === preset ? ' active' : ''}`}
              onClick={() => choosePreset(p.name)}
            >
              <b>{p.name}</b>
              <span>{p.description}</span>
              <span className="preset-time" data-testid={`preset-time-${p.name}`}>
                {presetTimeText(p)}
              </span>
            </button>
          ))}
        </div>
        <label className="editor-label" htmlFor="config-editor">
          Config (JSON) <span className="muted">— edit freely; the engine checks every field when you start</span>
        </label>
        <textarea
          id="config-editor"
          className={`code-editor${check.ok ? '' : ' invalid'}`}
          spellCheck={false}
          value={text}
          onChange={(e) => editConfig(e.target.value)}
          data-testid="config-editor"
          rows={18}
        />
        {!check.ok && (
          <div className="inline-error" data-testid="config-syntax-error">
            {check.line !== null ? `Line ${check.line}, column ${check.column}: ` : ''}
            {check.message}
          </div>
        )}
        {startError && (
          <div className="inline-error" role="alert" data-testid="config-engine-error">
            The engine refused this config: {startError}
          </div>
        )}
        <div className="form-row">
          {(['da', 'ca'] as const).map((role) => (
            <label
              key={role}
              title={`A model saved in the lab (Models screen) plays the ${role.toUpperCase()}: no ${role.toUpperCase()}0, its gyms skipped. Sets the config's schedule.llm.${role}.`}
            >
              {role.toUpperCase()} played by
              <select
                value={llmRoleOf(text, role)}
                onChange={(e) => editConfig(withLlmRole(text, role, e.target.value))}
                disabled={!check.ok}
                data-testid={`run-llm-${role}`}
              >
                <option value="">builtin (bootstrapped, trained)</option>
                {llmModels(llmRoleOf(text, role)).map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            </label>
          ))}
          <label title="DA0's supervised fine-tuning also learns the rows of a corpus imported into the lab (sparring import-banking77), as RL-ADA's DA0 learnt Banking77's vocabulary; rows that repeat a bank sentence are left out. Sets the config's bootstrap.sft.corpus to the corpus's content hash.">
            DA0 also learns
            <select
              value={corpusOf(text)}
              onChange={(e) => editConfig(withCorpus(text, e.target.value))}
              disabled={!check.ok || (corpora.length === 0 && corpusOf(text) === '')}
              data-testid="run-corpus"
            >
              <option value="">{corpora.length ? 'the bank alone' : 'the bank alone (no corpus imported)'}</option>
              {corpora.map((c) => (
                <option key={c.id} value={c.hash}>
                  {corpusLabel(c)}
                </option>
              ))}
              {corpusOf(text) !== '' && !corpora.some((c) => c.hash === corpusOf(text)) && (
                <option value={corpusOf(text)}>{corpusOf(text).slice(0, 19)}… (not in this lab)</option>
              )}
            </select>
          </label>
          <label title="Where the run's policies execute; the run records the provider it got, and why. Sets the config's device.provider.">
            Device
            <select
              value={deviceOf(text)}
              onChange={(e) => editConfig(withDevice(text, e.target.value as ProviderChoice | ''))}
              disabled={!check.ok}
              data-testid="device-picker"
            >
              <option value="">engine default</option>
              {Object.entries(DEVICE_LABELS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label title="RL-ADA: only the weaker agent trains after a match, against the frozen other (the default). IB-RL: both train from the same joint rollouts, paired by the opponent pool. Sets the config's schedule.">
            Schedule
            <select
              value={schedule}
              onChange={(e) => defaultPool && editConfig(withSchedule(text, e.target.value as ScheduleKind, defaultPool))}
              disabled={!check.ok || !defaultPool}
              data-testid="schedule-picker"
            >
              <option value="rl-ada">RL-ADA isolation</option>
              <option value="ib-rl">IB-RL (bilateral, opponent pool)</option>
            </select>
          </label>
          {schedule === 'ib-rl' &&
            defaultPool &&
            (Object.keys(POOL_LABELS) as PoolKey[]).map((k) => (
              <label key={k}>
                {POOL_LABELS[k]}
                <input
                  type="number"
                  min={0}
                  max={1}
                  step={0.05}
                  value={pool[k] ?? ''}
                  onChange={(e) => Number.isFinite(e.target.valueAsNumber) && editConfig(withPoolValue(text, k, e.target.valueAsNumber, defaultPool))}
                  data-testid={`pool-${k}`}
                />
              </label>
            ))}
          <label>
            Seed
            <input
              type="number"
              value={Number.isNaN(seed) ? '' : seed}
              onChange={(e) => setSeed(e.target.valueAsNumber)}
              aria-invalid={badSeed !== null}
              aria-describedby={badSeed ? 'seed-problem' : undefined}
              data-testid="seed"
            />
          </label>
          <label
            className="check"
            title="A run for choosing settings: it plays and stores its held-out evaluation as any run, and the Evaluation screen leaves it out unless asked for by name"
          >
            <input type="checkbox" checked={arenaOnly} onChange={(e) => setArenaOnly(e.target.checked)} data-testid="run-arena-only" /> arena only, for choosing
            settings
          </label>
          <button className="btn" onClick={resetConfig}>
            Reset to preset
          </button>
          <button className="btn primary" disabled={!check.ok || starting || badSeed !== null} onClick={() => void start()} data-testid="start-run">
            {starting ? 'Starting…' : 'Start run'}
          </button>
        </div>
        {badSeed && (
          <div className="inline-error" id="seed-problem" data-testid="seed-problem">
            {badSeed}
          </div>
        )}
      </>
    );

  return (
    <section className="panel">
      <header className="panel-head">
        <h3>New run</h3>
      </header>
      {body}
    </section>
  );
}

const STATUS_TONE = { created: 'neutral', running: 'da', paused: 'warn', finished: 'ok', failed: 'bad', stopped: 'neutral' } as const;

function RecentRuns() {
  const runs = useRunsStore(selectRuns);
  const status = useRunsStore(selectRunsStatus);
  const error = useRunsStore(selectRunsError);
  return (
    <section className="panel">
      <header className="panel-head">
        <h3>Recent runs</h3>
        <button className="btn tiny" onClick={() => void loadRuns()}>
          Refresh
        </button>
      </header>
      {status === 'loading' && <LoadingState label="Loading runs…" />}
      {status === 'error' && <ErrorState title="Could not load runs" error={error ?? ''} actions={[{ label: 'Retry', onClick: () => void loadRuns() }]} />}
      {status === 'ready' && runs.length === 0 && (
        <EmptyState title="No runs in this lab yet">Runs you start appear here with their phase and latest W_DA.</EmptyState>
      )}
      {runs.length > 0 && (
        <table className="table" data-testid="runs-table">
          <thead>
            <tr>
              <th>Run</th>
              <th>Preset</th>
              <th>Status</th>
              <th>Phase</th>
              <th className="num">Matches</th>
              <th className="num">Last W_DA</th>
              <th>Device</th>
              <th>Started</th>
            </tr>
          </thead>
          <tbody>
            {[...runs].reverse().map((r) => (
              <Fragment key={r.id}>
                <tr onClick={() => navigate('runs', r.id)} className="clickable" title={r.error ?? undefined}>
                  <td className="mono">
                    {r.id}{' '}
                    {r.arenaOnly && (
                      <Badge
                        tone="neutral"
                        title="Made for choosing settings on the arena: its held-out evaluation is left out of its views unless asked for by name"
                      >
                        arena only
                      </Badge>
                    )}
                  </td>
                  <td>{r.preset}</td>
                  <td>
                    <Badge tone={STATUS_TONE[r.status]}>{r.status}</Badge>
                  </td>
                  <td>{r.phase}</td>
                  <td className="num">{r.matches}</td>
                  <td className="num">{r.lastWDa === null ? '—' : `${(r.lastWDa * 100).toFixed(1)}%`}</td>
                  <td title={r.device?.reason}>{deviceLabel(r.device)}</td>
                  <td>{formatTime(r.createdAt)}</td>
                </tr>
                {/* A failed run says why in the list itself, not only in a tooltip. */}
                {r.status === 'failed' && r.error && (
                  <tr className="clickable run-error-row" onClick={() => navigate('runs', r.id)}>
                    <td colSpan={8} className="small run-error" data-testid="run-error">
                      {r.id} failed: {r.error}
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
