/**
 * The co-evolution runner: the RunService of the engine (web mode, Electron) and of
 * `sparring run`. It drives the run machine with the builtin actors, persists the machine's
 * snapshot in the lab at every phase boundary (so `--resume` continues a run killed at any
 * moment), stores gym metric series, and emits events for live dashboards.
 */
import { faultPoint } from '../store/fault-injection';
import { createActor, fromPromise } from 'xstate';
import type { Actor } from 'xstate';
import { runMachine } from '../../core/coevolution/run.machine';
import type { RunContext } from '../../core/coevolution/run.machine';
import { parseRunConfig, RUN_THREADS, RunConfigError, sparringConfigOf } from '../../core/coevolution/run-config';
import { IB_RL_DEFAULTS, PRESETS } from '../../core/presets';
import type { RunConfig } from '../../core/coevolution/run-config';
import type { PresetInfo, ProgressReport, RunDetail, RunPhase, RunStatus } from '../../core/contract/contract';
import type { EngineEvent, RunService } from '../../core/contract/run-service';
import type { Domain } from '../../core/domain/types';
import type { SessionSettings } from '../../models/session';
import { chooseDevice } from '../../models/device';
import type { DeviceRecord, ProviderChoice } from '../../core/contract/device';
import { knobStore } from '../store/knob-store';
import type { KnobRunState, KnobWrite } from '../store/knob-store';
import { labDomain } from '../store/scenario-store';
import { checkpointStore } from '../store/checkpoint-store';
import { heldCorpusRows } from '../store/corpus-store';
import { openSqliteStore } from '../store/sqlite-store';
import { RUN_HEARTBEAT_MS, runLease } from '../store/run-lease';
import type { SqliteRunStore } from '../store/sqlite-store';
import { PolicyCache, bootstrap, evaluate, gym, jointRollouts, playMatch, runDomain } from './actors';
import { RULE_JUDGE_SPEC, ruleJudge } from '../../core/judge/port';
import type { Judge } from '../../core/judge/port';
import { JudgeSpecError, resolveJudge } from '../policies/policies';
import { cancelGymJob, externalRoles, fromLlm, trainerCommands } from './external-gym';
import { externalGym } from './external-gym-actor';
import { gymJobStore } from '../store/gym-job-store';
import { createRunReader, statusOf } from './run-reader';
import type { LabContext } from './lab-context';

type RunActor = Actor<typeof runMachine>;

interface Live {
  actor: RunActor;
  cache: PolicyCache;
  stopped: boolean;
  progress: ProgressReport | null;
  finished: Promise<void>;
  /** Set when the run failed and the lab could not record even that (`settled` rejects with it). */
  unrecorded: Error | null;
}

export interface RunServiceOptions {
  dbPath: string;
  domain?: Domain;
  session?: SessionSettings;
  /** The provider of runs whose config has no `device` block (default 'cpu'): `sparring serve --provider`, the app's setting. */
  provider?: ProviderChoice;
  /** Overrides every run's `device.provider` (`sparring run --resume R --provider P`). */
  forceProvider?: ProviderChoice;
  /** Receives the device chosen for each run start and resume, with the reason (the CLI prints it). */
  onDevice?: (runId: string, device: DeviceRecord) => void;
  /** How often a run waiting for an external trainer reads its gym job (ms; default external-gym-actor.ts TRAINER_POLL_MS). */
  trainerPollMs?: number;
  /**
   * Runs started with the same scope share a bootstrap when its inputs are equal (a study's
   * workers pass the study, so its arms share each seed's DA0 and CA0; bootstrap-reuse.ts). A
   * scope, rather than the whole lab, because a lab outlives releases: a later release's run must
   * not take an earlier release's DA0. Absent: every run trains its own.
   */
  bootstrapScope?: string;
  /** false (`sparring run --no-cache`): LLM calls of the runs' roles and judge skip the lab's response cache (new answers are still stored). Default true. */
  llmCache?: boolean;
}

export interface LocalRunService extends RunService {
  readonly store: SqliteRunStore;
  /** Resolves when the run reaches a final state (done, stopped, failed) or pauses. */
  settled(runId: string): Promise<RunDetail>;
  close(): Promise<void>;
}

const FINAL: readonly string[] = ['done', 'stopped', 'failed'];

/** The runs table's status column knows no 'stopped': a stopped run is finished early. */
function dbStatus(s: RunStatus): string {
  return s === 'stopped' ? 'finished' : s;
}

export function createRunService(opts: RunServiceOptions): LocalRunService {
  const noCache = opts.llmCache === false ? ({ cache: false } as const) : {};
  const store = openSqliteStore(opts.dbPath);
  const db = store.db;
  const checkpoints = checkpointStore(db);
  const live = new Map<string, Live>();
  const listeners = new Set<(e: EngineEvent) => void>();
  const emit = (e: EngineEvent) => listeners.forEach((l) => l(e));

  const insertMetric = db.prepare('INSERT OR REPLACE INTO run_metrics (run_id, phase, key, step, value) VALUES (?, ?, ?, ?, ?)');
  const updateRun = db.prepare('UPDATE runs SET status = ?, snapshot_json = ?, error = ?, updated_at = ? WHERE id = ?');
  const updateMarks = db.prepare('UPDATE runs SET metric_marks_json = ? WHERE id = ?');
  const lease = runLease(db);
  // The heartbeat of every run this process drives (host/store/run-lease.ts): a killed process's goes stale.
  const heartbeat = setInterval(() => {
    for (const runId of live.keys()) {
      try {
        lease.beat(runId);
      } catch {
        // A busy lab: the next beat tries again (the stale bound is six beats).
      }
    }
  }, RUN_HEARTBEAT_MS);
  heartbeat.unref();
  const updateDevice = db.prepare('UPDATE runs SET device_json = ? WHERE id = ?');

  /** The device of a run (its config's `device` block, or the service's defaults), chosen and recorded before it (re)starts. */
  async function deviceFor(runId: string, config: RunConfig): Promise<DeviceRecord> {
    const d = config.device;
    const device = await chooseDevice({
      provider: opts.forceProvider ?? d?.provider ?? opts.provider ?? 'cpu',
      threads: d?.threads ?? RUN_THREADS,
      play: d?.play ?? 'provider',
    });
    updateDevice.run(JSON.stringify(device), runId);
    opts.onDevice?.(runId, device);
    return device;
  }
  const reader = createRunReader(db, opts.dbPath, (runId) => {
    const l = live.get(runId);
    return l ? { snapshot: l.actor.getPersistedSnapshot(), progress: l.progress } : undefined;
  });
  const row = reader.row;

  // Metric points go out in batches (a few events a second), not one event per step.
  let pending: { runId: string; key: string; step: number; value: number; phase: string }[] = [];
  let flushTimer: ReturnType<typeof setTimeout> | null = null;
  const flushMetrics = () => {
    flushTimer = null;
    const byRun = new Map<string, { key: string; step: number; value: number; phase: string }[]>();
    for (const p of pending) byRun.set(p.runId, [...(byRun.get(p.runId) ?? []), { key: p.key, step: p.step, value: p.value, phase: p.phase }]);
    pending = [];
    for (const [runId, points] of byRun) emit({ name: 'run/metrics', payload: { runId, points } });
  };

  /**
   * EAU's experience pool: the kept writes of an earlier run (applied, not reverted, measured
   * better beyond the noise floor), applied to the new run from its start as inherited writes.
   */
  function inheritWrites(runId: string, from: string, kept: readonly KnobWrite[]): void {
    knobStore(db).recordInherited(
      runId,
      kept.map((w) => ({ knob: w.knob, value: w.value, reason: `inherited from ${from} W${w.id}: ${w.reason}`, by: `inherited:${from}/W${w.id}` })),
    );
  }

  /** The judge a run config names (`judge`; absent: the rule judge), from the lab's endpoints; a RunConfigError naming the field when it names none. */
  function runJudge(config: RunConfig, source: string): Judge {
    const spec = config.judge ?? RULE_JUDGE_SPEC;
    if (spec === RULE_JUDGE_SPEC) return ruleJudge;
    try {
      return resolveJudge(spec, { db: store.path, seed: 0, ...noCache });
    } catch (e) {
      if (e instanceof JudgeSpecError) throw new RunConfigError(source, 'judge', `"${spec}": ${e.detail}`);
      throw e;
    }
  }

  /**
   * Metric points written after the run's last persisted phase boundary or checkpoint (a killed
   * attempt's, in the work being replayed): deleted before the replay. `resumed` false: the run has no
   * snapshot yet, so no phase ended and none of its points stand.
   */
  function dropUnpersistedMetrics(runId: string, resumed: boolean): void {
    if (!resumed) {
      db.prepare('DELETE FROM run_metrics WHERE run_id = ?').run(runId);
      return;
    }
    const marksJson = db.prepare<[string], string | null>('SELECT metric_marks_json FROM runs WHERE id = ?').pluck().get(runId);
    if (marksJson === null || marksJson === undefined) return; // persisted before migration 28: left as it is
    const marks = JSON.parse(marksJson) as Record<string, number>;
    const drop = db.prepare('DELETE FROM run_metrics WHERE run_id = ? AND key = ? AND step >= ?');
    const keys = db.prepare<[string], string>('SELECT DISTINCT key FROM run_metrics WHERE run_id = ?').pluck().all(runId);
    db.transaction(() => {
      for (const key of keys) drop.run(runId, key, marks[key] ?? 0);
    }).immediate();
  }

  function launch(runId: string, config: RunConfig, seed: number, snapshot: unknown, device: DeviceRecord): Live {
    // Custom scenarios of the lab join the robustness set, which a run with adversities evaluates.
    const domain = opts.domain ?? labDomain(db);
    const session: SessionSettings = { ...opts.session, provider: device.provider, ...(device.threads !== null ? { intraOpNumThreads: device.threads } : {}) };
    // Matches and evaluation load their policies through the cache: on the CPU when the device block says so.
    const llm = config.schedule?.llm;
    const cache = new PolicyCache({
      checkpoints,
      domain,
      session: { ...session, provider: device.play },
      dbPath: store.path,
      ...(llm ? { llm: { dbPath: store.path, ...llm } } : {}),
      ...noCache,
    });
    let lastProgress = 0;
    let lastLabel = '';
    // A resumed run replays the phase it was killed in: the points that attempt wrote after the
    // last phase boundary go, so the replay writes them again rather than after them.
    dropUnpersistedMetrics(runId, snapshot !== null);
    // Metric steps count through the whole run per key (phases follow one another), so a
    // series plots as one curve; a resumed run continues after the last stored step.
    const nextStep = new Map<string, number>(
      db
        .prepare<[string], { key: string; s: number }>('SELECT key, MAX(step) AS s FROM run_metrics WHERE run_id = ? GROUP BY key')
        .all(runId)
        .map((r) => [r.key, r.s + 1]),
    );
    const judge = runJudge(config, `run ${runId} config`);
    const l: Live = { actor: null as unknown as RunActor, cache, stopped: false, progress: null, finished: Promise.resolve(), unrecorded: null };
    // EAU knobs: the run goes on with its effective config (its config + the applied writes), and
    // takes queued writes at every phase boundary and every GRPO step boundary (host/store/knob-store.ts).
    const knobs = knobStore(db);
    const effective = knobs.effective(runId);
    const domainOf = (c: RunConfig) => runDomain(domain, c, seed);
    const takeWrites = (kind: 'step' | 'phase', at: Omit<KnobRunState, 'metricStep'>) => {
      if (kind === 'phase' && ctx.config.eau?.autoRevert) knobs.autoRevert(runId);
      const applied = knobs.applyPending(runId, kind, { ...at, metricStep: nextStep.get('gym/reward_mean') ?? 0 });
      if (applied.length === 0) return;
      const c = knobs.effective(runId);
      ctx.config = c;
      ctx.sparring = sparringConfigOf(c);
      ctx.domain = domainOf(c);
    };
    const matchesPlayed = () => l.actor.getSnapshot().context.matches.length;
    const ctx: LabContext = {
      runId,
      seed,
      domain: domainOf(effective),
      config: effective,
      sparring: sparringConfigOf(effective),
      store,
      // A saved checkpoint is work a resumed phase does not redo (its bootstrap and gyms find it and
      // go on), so the metric points written before it stand: the marks move with it, in its transaction.
      checkpoints: {
        ...checkpoints,
        save: (c) =>
          db
            .transaction(() => {
              const saved = checkpoints.save(c);
              updateMarks.run(JSON.stringify(Object.fromEntries(nextStep)), runId);
              return saved;
            })
            .immediate(),
      },
      session,
      progress: (p) => {
        l.progress = p;
        const now = Date.now();
        // A few reports a second, and always a phase's first and last: a short gym still shows that it ran.
        if (now - lastProgress > 250 || p.done === p.total || p.label !== lastLabel) {
          lastProgress = now;
          lastLabel = p.label;
          emit({ name: 'run/progress', payload: { runId, progress: p } });
        }
      },
      metric: (phase, key, _phaseStep, value) => {
        const step = nextStep.get(key) ?? 0;
        nextStep.set(key, step + 1);
        insertMetric.run(runId, phase, key, step, value);
        faultPoint('metric');
        pending.push({ runId, key, step, value, phase });
        flushTimer ??= setTimeout(flushMetrics, 250);
      },
      stopped: () => l.stopped,
      judge,
      ...(opts.bootstrapScope !== undefined ? { bootstrapScope: opts.bootstrapScope } : {}),
      atStep: (gymName, step) => takeWrites('step', { phase: 'gym', matches: matchesPlayed(), gym: gymName, gymStep: step }),
      // The diagnostics' proposals go to the knob console's store (pending until a person decides).
      recordProposals: (id, found) => {
        knobs.recordProposals(id, found);
      },
    };
    const machine = runMachine.provide({
      actors: {
        bootstrap: fromPromise(() => (takeWrites('phase', { phase: 'bootstrap', matches: 0 }), bootstrap(ctx, cache))),
        playMatch: fromPromise(({ input }) => (takeWrites('phase', { phase: 'match', matches: input.index - 1 }), playMatch(ctx, cache, input))),
        gym: fromPromise(({ input }) => (takeWrites('phase', { phase: 'gym', matches: input.afterMatch ?? matchesPlayed() }), gym(ctx, cache, input))),
        evaluate: fromPromise(({ input }) => evaluate(ctx, cache, input)),
        externalGym: fromPromise(async ({ input, signal }) => {
          // IB-RL: the round's joint rollouts first, so the export holds the update's data.
          await jointRollouts(ctx, cache, input);
          return externalGym(ctx, domain, input, {
            signal,
            ...(opts.trainerPollMs !== undefined ? { pollMs: opts.trainerPollMs } : {}),
            onJob: (job) =>
              emit({
                name: 'run/trainer',
                payload: { runId, job: job.status === 'waiting' ? { ...job, commands: trainerCommands(job, store.path, fromLlm(db, job.from)) } : job },
              }),
          });
        }),
      },
    });
    const external = externalRoles(config);
    const input = {
      runId,
      seed,
      stopping: ctx.sparring.stopping,
      ...(config.schedule ? { schedule: config.schedule } : {}),
      ...(external.length ? { externalGyms: external } : {}),
    };
    const actor = createActor(machine, snapshot ? { snapshot: snapshot as never, input } : { input });
    l.actor = actor;
    let lastValue = '';
    let lastGyms = -1;
    let lastPauseRequested = false;
    let seenMatches = 0;
    let seenGyms = 0;
    let resolveFinished!: () => void;
    l.finished = new Promise((r) => (resolveFinished = r));
    /**
     * The run cannot go on: the lab refused a write of its own (a full disk, a locked file) or an
     * event listener threw. Record it as failed if the lab still takes that, stop the machine, and
     * let `settled` answer: an exception left in the subscriber would be reported as unhandled
     * while the run's `finished` never settled.
     */
    const fail = (err: unknown) => {
      if (live.get(runId) !== l) return;
      live.delete(runId);
      l.stopped = true;
      try {
        lease.release(runId);
      } catch {
        // The lab refuses writes: the lease goes stale with this process.
      }
      const message = err instanceof Error ? err.message : String(err);
      // The machine's last snapshot, ended as its own 'failed' state would end it.
      const snap = actor.getPersistedSnapshot() as unknown as { context: RunContext };
      const ended = { ...snap, value: 'failed', status: 'done', children: {}, context: { ...snap.context, error: message } };
      try {
        updateRun.run('failed', JSON.stringify(ended), message, new Date().toISOString(), runId);
      } catch (e) {
        l.unrecorded = new Error(`run ${runId} failed (${message}), and the lab could not record that: ${(e as Error).message}`, { cause: err });
      }
      actor.stop();
      void cache.dispose();
      resolveFinished();
      try {
        emit({ name: 'run/status', payload: { runId, status: 'failed', phase: 'failed', pauseRequested: false } });
      } catch {
        // A listener that throws again: the failure is recorded (or `settled` rejects with it).
      }
    };
    actor.subscribe({
      next(snap) {
        try {
          onSnapshot(snap);
        } catch (e) {
          fail(e);
        }
      },
      error(err) {
        fail(err);
      },
    });
    function onSnapshot(snap: ReturnType<RunActor['getSnapshot']>) {
      const value = String(snap.value);
      const c = snap.context;
      const status = statusOf(value);
      // A phase boundary: persist, so a killed process resumes from here. Before the events
      // below: a reader that reacts to one (the app reloads the run after a gym an external
      // trainer ended) must find it in the lab, not the snapshot of the phase before. A gym
      // followed by another (isolation 'both': the DA's, then the CA's) passes the boundary
      // without changing the state's name: the finished gym marks it.
      const boundary = value !== lastValue || (lastGyms >= 0 && c.gyms.length !== lastGyms);
      lastGyms = c.gyms.length;
      if (boundary)
        db.transaction(() => {
          updateRun.run(dbStatus(status), JSON.stringify(actor.getPersistedSnapshot()), c.error, new Date().toISOString(), runId);
          faultPoint('snapshot');
          updateMarks.run(JSON.stringify(Object.fromEntries(nextStep)), runId);
        })();
      for (; seenMatches < c.matches.length; seenMatches++) emit({ name: 'run/match', payload: { runId, match: c.matches[seenMatches]! } });
      for (; seenGyms < c.gyms.length; seenGyms++) emit({ name: 'run/gym', payload: { runId, gym: c.gyms[seenGyms]! } });
      // A pause asked for mid-phase takes effect at the next boundary: say so now, so the
      // person who asked sees "pausing after this phase" rather than an unchanged "running".
      const pauseRequested = status === 'running' && c.pauseRequested;
      if (!boundary) {
        if (pauseRequested !== lastPauseRequested) {
          lastPauseRequested = pauseRequested;
          emit({ name: 'run/status', payload: { runId, status, phase: value as RunPhase, pauseRequested } });
        }
        return;
      }
      lastValue = value;
      lastPauseRequested = pauseRequested;
      emit({ name: 'run/status', payload: { runId, status, phase: value as RunPhase, pauseRequested } });
      if (FINAL.includes(value) || value === 'paused') {
        if (FINAL.includes(value)) {
          live.delete(runId);
          lease.release(runId);
          void cache.dispose();
        }
        resolveFinished();
        l.finished = new Promise((r) => (resolveFinished = r));
      }
    }
    live.set(runId, l);
    actor.start();
    return l;
  }

  const service: LocalRunService = {
    store,
    presets: presetInfos,
    async start({ preset, configJson, seed, inherit, arenaOnly }) {
      const known = PRESETS[preset as keyof typeof PRESETS];
      if (!known && configJson === undefined)
        throw new RunConfigError('preset', 'preset', `unknown preset "${preset}"; known: ${Object.keys(PRESETS).join(', ')}`);
      const config = configJson !== undefined ? parseRunConfig(configJson, 'config') : known.config;
      // An unknown judge, or a corpus the lab does not hold, is refused by name before the run exists.
      runJudge(config, 'config');
      if (config.bootstrap.sft.corpus) heldCorpusRows(db, config.bootstrap.sft.corpus, 'config');
      const runSeed = seed ?? 1;
      const kept = inherit !== undefined ? knobStore(db).keptWrites(inherit) : [];
      // IMMEDIATE: count and insert under the write lock, so another process of the lab (a
      // study's worker, the app) cannot take the same id in between.
      const runId = db
        .transaction(() => {
          const id = `R${(db.prepare('SELECT COUNT(*) FROM runs').pluck().get() as number) + 1}`;
          const now = new Date().toISOString();
          db.prepare('INSERT INTO runs (id, created_at, updated_at, status, seed, config_json, preset, arena_only) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
            id,
            now,
            now,
            'running',
            runSeed,
            JSON.stringify(config),
            known ? preset : '',
            arenaOnly ? 1 : 0,
          );
          lease.own(id);
          return id;
        })
        .immediate();
      if (inherit !== undefined) inheritWrites(runId, inherit, kept);
      launch(runId, config, runSeed, null, await deviceFor(runId, config));
      return { runId };
    },
    pause(runId) {
      const l = live.get(runId);
      if (!l) throw new Error(`run ${runId} is not running in this process`);
      l.actor.send({ type: 'user.pause' });
    },
    async resume(runId) {
      const l = live.get(runId);
      if (l) {
        l.actor.send({ type: 'user.resume' });
        return;
      }
      const r = row(runId);
      const snap = r.snapshot_json ? (JSON.parse(r.snapshot_json) as { value: string }) : null;
      if (snap && FINAL.includes(snap.value)) throw new Error(`run ${runId} has ended (${snap.value}); nothing to resume`);
      const config = parseRunConfig(r.config_json, `run ${runId} config`);
      // One driver per run: a live process that drives it (a `sparring run`, the app, a study's
      // worker) keeps it; one that died is taken over.
      lease.claim(runId);
      const restored = launch(runId, config, r.seed, snap, await deviceFor(runId, config));
      if (snap?.value === 'paused') restored.actor.send({ type: 'user.resume' });
    },
    stop(runId) {
      const l = live.get(runId);
      if (!l) throw new Error(`run ${runId} is not running in this process`);
      l.stopped = true;
      l.actor.send({ type: 'user.stop' });
      // A stopped run never takes a trainer's result: its waiting gym job ends with it.
      for (const j of gymJobStore(db).list(runId)) if (j.status === 'waiting') cancelGymJob(db, j.id, 'the run was stopped');
    },
    list: reader.list,
    get: reader.get,
    metrics: reader.metrics,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async settled(runId) {
      const l = live.get(runId);
      if (l) {
        await l.finished;
        if (l.unrecorded) throw l.unrecorded;
      }
      return service.get(runId);
    },
    async close() {
      clearInterval(heartbeat);
      for (const [runId, l] of live) {
        l.stopped = true;
        l.actor.stop();
        lease.release(runId);
        await l.cache.dispose();
      }
      live.clear();
      if (flushTimer) clearTimeout(flushTimer);
      store.close();
    },
  };
  return service;
}

export function presetInfos(): PresetInfo[] {
  return Object.entries(PRESETS).map(([name, p]) => ({
    name,
    description: p.description,
    configJson: JSON.stringify(p.config, null, 2),
    ibRlPool: { ...IB_RL_DEFAULTS.pool },
  }));
}
