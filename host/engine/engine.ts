/**
 * The engine: every command and query of the typed contract, over one lab (the SQLite RunStore)
 * and a RunService (the co-evolution runner). The same engine runs in the Electron utility
 * process, in the web server and in tests; hosts reach it through `handlers` (validated at the
 * boundary) and `subscribe` (events, high-rate ones batched to a few a second).
 */
import type { CheckpointInfo, CorpusInfo, CrossPlay, EngineInfo, Handlers, RequestName } from '../../core/contract/contract';
import type { EngineEvent, RunService } from '../../core/contract/run-service';
import type { CaPolicy, DaPolicy } from '../../core/agents/policy';
import { runMatch } from '../../core/arena/match';
import { selectScenarios } from '../../core/arena/scenarios';
import { DEFAULT_CONFIG, withEpisodes } from '../../core/config';
import type { SparringConfig } from '../../core/config';
import { judgeEpisode } from '../../core/judge/judge';
import { matchConcurrency, pendingLlmCalls, playLedger, resolveCa, resolveDa, resolveJudge } from '../policies/policies';
import { runArena } from '../coevolution/actors';
import { llmStore } from '../store/llm-store';
import { mergeLab } from '../store/lab-merge';
import type { SessionSettings } from '../../models/session';
import { bankingDomain } from '../domain-files';
import { hashedCorpusImports } from '../store/corpus-store';
import { checkpointStore, describeLlm } from '../store/checkpoint-store';
import { openSqliteStore } from '../store/sqlite-store';
import { nextArenaMatchId } from '../llm/store-match';
import { labelStore } from '../store/label-store';
import { knobHandlers } from './knobs';
import { labelHandlers } from './labels';
import { madsHandlers } from './mads';
import { throttledProgress } from './progress';
import { bestResponseHandlers } from './best-response';
import { caPolicyHandlers } from './ca-policy';
import { modelHandlers } from './models';
import { scenarioHandlers } from './scenarios';
import { studyHandlers } from './studies';
import { customScenarioStore, labDomain } from '../store/scenario-store';
import { BATCH_INTERVAL_MS, createEventBatcher } from './batch';
import { createEpisodeQuery } from './episode-query';
import { createPlayService } from './play';
import { CSV_COLUMNS, episodeCsvRow, episodeToChat, exportMatchIds } from './export';
import { tableFile } from '../../core/export/data-table';
import { tablesOf } from '../report/result-tables';
import { crossPlay } from './crossplay';
import { disposeModel, replayPair } from './replay';
import { isUnavailable } from './runs-unavailable';
import { presetsWithTimes, setRunNote } from '../coevolution/run-identity';
import { parseArgs } from './validate';

export interface EngineOptions {
  /** The lab file; created (with its folders) and migrated when needed. */
  dbPath: string;
  runService: RunService;
  /** Spacing of batched events (default 250 ms: four updates a second at most). */
  batchIntervalMs?: number;
  /** Where matches, human play and replays run their policies (`sparring serve --provider`); default the CPU. */
  session?: SessionSettings;
}

export interface Engine {
  /** Every request of the contract; arguments are validated before a handler runs. Each returns a promise. */
  readonly handlers: Handlers;
  /** Events for clients (batched); returns the unsubscribe function. */
  subscribe(listener: (e: EngineEvent) => void): () => void;
  /** Stop forwarding events and close the lab. A match still playing fails instead of saving. */
  close(): void;
}

/** Episodes read per store call while exporting. */
const EXPORT_PAGE = 200;
/** A match yields to the event loop at least this often, so requests and events keep flowing. */
const YIELD_EVERY_MS = 20;
/** Episodes played at once in `matches/play` (the CLI's figure). */
const MATCH_CONCURRENCY = 32;

export function createEngine(o: EngineOptions): Engine {
  const store = openSqliteStore(o.dbPath);
  const customScenarios = customScenarioStore(store.db);
  /** The shipped domain with the lab's custom scenarios (in the robustness set), read per request. */
  const domain = () => labDomain(store.db);
  const checkpoints = checkpointStore(store.db);
  const listEpisodes = createEpisodeQuery(store);
  const listeners = new Set<(e: EngineEvent) => void>();
  const batcher = createEventBatcher((e) => {
    for (const l of listeners) {
      try {
        l(e);
      } catch (err) {
        process.stderr.write(`sparring engine: an event listener failed: ${String(err)}\n`);
      }
    }
  }, o.batchIntervalMs ?? BATCH_INTERVAL_MS);
  const unsubscribeRuns = o.runService.subscribe((e) => batcher.push(e));
  const studies = studyHandlers({
    db: store.db,
    dbPath: store.path,
    emit: (e) => batcher.push(e),
    play: { store, serially: (work) => serially(work), ...(o.session ? { session: o.session } : {}) },
  });
  let closed = false;
  /** Cross-play answers by arguments: checkpoints never change under a name (`latest` is keyed by what it names now). */
  const crossPlays = new Map<string, CrossPlay>();
  /** Matches and replays play one at a time: they share the CPU, and matches number their ids from the store. */
  let playing: Promise<unknown> = Promise.resolve();
  const models = o.session ? { session: o.session } : {};
  const play = createPlayService({
    store,
    domain,
    release: disposeModel,
    emit: (payload) => batcher.push({ name: 'play/turn', payload }),
    resolve: (role, spec, calls) =>
      (role === 'DA' ? resolveDa : resolveCa)(spec, bankingDomain(), { db: store.path, seed: 1, ...models, onTraining: trainingProgress, ledger: calls }),
    ledger: () => playLedger(store.path),
  });

  /** A few training reports a second, and always the last: Play says what the wait is for. */
  let lastTraining = 0;
  function trainingProgress(p: { label: string; done: number; total: number }): void {
    const now = Date.now();
    if (now - lastTraining < 200 && p.done < p.total) return;
    lastTraining = now;
    batcher.push({ name: 'play/progress', payload: p });
  }

  function checkOpen(): void {
    if (closed) throw new Error('the engine is closed');
  }

  /** Run `work` after whatever is playing (matches, replays, cross-play share the CPU). */
  function serially<T>(work: () => Promise<T>): Promise<T> {
    const run = playing.then(() => (checkOpen(), work()));
    playing = run.catch(() => undefined);
    return run;
  }

  const impl: Handlers = {
    ...play.handlers,
    'engine/info': (): EngineInfo => {
      // What resolveDa / resolveCa accept: scripted; for the DA also sft (trained on demand);
      // latest and every checkpoint name once the lab holds checkpoints of the role.
      const names = (role: 'DA' | 'CA') => {
        const list = checkpoints.list(role).map((c) => c.name);
        // LLMs saved with `sparring models add` (endpoints and GGUF files) play either role.
        const endpoints = llmStore(store.db).savedNames();
        return ['scripted', ...(role === 'DA' ? ['sft'] : []), ...(list.length ? ['latest', ...list] : []), ...endpoints];
      };
      return {
        dbPath: store.path,
        runsUnavailable: isUnavailable(o.runService) ? o.runService.unavailable : null,
        policies: { da: names('DA'), ca: names('CA') },
      };
    },

    'presets/list': () => presetsWithTimes(store.db, o.runService.presets()),
    'runs/list': () => o.runService.list(),
    'runs/get': ({ runId }) => o.runService.get(runId),
    'runs/start': (args) => o.runService.start(args),
    'runs/pause': ({ runId }) => {
      o.runService.pause(runId);
      return { ok: true };
    },
    'runs/resume': async ({ runId }) => {
      await o.runService.resume(runId);
      return { ok: true };
    },
    'runs/stop': ({ runId }) => {
      o.runService.stop(runId);
      return { ok: true };
    },
    'runs/note': ({ runId, note }) => {
      const stored = setRunNote(store.db, runId, note);
      batcher.push({ name: 'run/note', payload: { runId, note: stored } });
      const run = o.runService.list().find((r) => r.id === runId);
      if (!run) throw new Error(`no run "${runId}" in this lab`);
      return run;
    },
    'labs/merge': ({ file, dryRun }) => serially(async () => mergeLab(store.db, file, { dryRun: dryRun === true })),
    'metrics/series': ({ runId, keys }) => o.runService.metrics(runId, keys),

    'matches/list': ({ runId }) => {
      const ids = runId === undefined ? null : o.runService.get(runId).matchSummaries.map((m) => m.matchId);
      const matches = ids === null ? store.listMatches() : ids.flatMap((id) => store.getMatch(id) ?? []);
      // What the LLM calls behind each match cost, where LLMs played (Arena's match rows).
      const llm = llmStore(store.db).matchCallTotals();
      return matches.map((m) => (llm.has(m.id) ? { ...m, llm: llm.get(m.id)! } : m));
    },

    'matches/play': (args) =>
      serially(async () => {
        const run = args.run === undefined ? undefined : runArena(store.db, args.run, domain());
        if (args.run !== undefined && !run) throw new Error(`matches/play: no run "${args.run}" in this lab`);
        if (run && args.speak === 'validation' && !run.speakValidation)
          throw new Error(`matches/play: run "${args.run}" keeps no validation slice (its config has no validation.bankShare)`);
        const lab = run?.domain ?? domain();
        const g = { db: store.path, seed: args.seed, ...models };
        const daPolicy = await resolveDa(args.da, lab, g);
        let caPolicy: CaPolicy | null = null;
        try {
          caPolicy = await resolveCa(args.ca, lab, g, args.speak === 'validation' ? run?.speakValidation : run?.speak);
          const base = run?.sparring ?? DEFAULT_CONFIG;
          const config: SparringConfig = withEpisodes(base, args.episodesPerScenario);
          const matchId = nextArenaMatchId(store);
          let reported = 0;
          const { match, episodes } = await runMatch({
            matchId,
            createdAt: new Date().toISOString(),
            domain: lab,
            scenarios: selectScenarios(lab, args.scenarios),
            scenarioSet: args.scenarios,
            da: yielding(daPolicy),
            ca: yielding(caPolicy),
            judge: run ? resolveJudge(run.judge, g) : judgeEpisode,
            config,
            seed: args.seed,
            ...(run?.symbolic ? { symbolic: run.symbolic } : {}),
            // As `sparring match`: concurrent episodes let a batched (builtin) DA answer many at once;
            // an LLM endpoint gets its own max-concurrency.
            concurrency: matchConcurrency(daPolicy, caPolicy, MATCH_CONCURRENCY),
            onProgress: (done, total) => {
              batcher.push({ name: 'episodes/completed', payload: { matchId, count: done - reported, done, total } });
              reported = done;
            },
          });
          checkOpen();
          // All or nothing: a failure before this line stores no episode; LLM calls go in with the match.
          const ledger = pendingLlmCalls(store.path);
          store.db
            .transaction(() => {
              store.saveMatch(match, episodes);
              if (ledger) llmStore(store.db).writeLedger(ledger);
            })
            .immediate(); // IMMEDIATE, as saveMatch alone: a deferred transaction would read (the lab's scenarios) before it writes, and fail with SQLITE_BUSY at once when another connection wrote in between
          ledger?.written();
          batcher.flush();
          return { matchId };
        } finally {
          pendingLlmCalls(store.path)?.clear(); // a failed match keeps none of its calls
          await disposeModel(daPolicy);
          if (caPolicy) await disposeModel(caPolicy);
        }
      }),

    'episodes/list': (filter) => listEpisodes(filter),

    'corpora/list': () => hashedCorpusImports(store.db).map(({ problems: _problems, ...c }): CorpusInfo => c),

    'evaluation/crossplay': (args) => {
      const latest = [...args.das, ...args.cas].includes('latest') ? [checkpoints.list('DA').at(-1)?.name, checkpoints.list('CA').at(-1)?.name] : [];
      const key = JSON.stringify([args.das, args.cas, args.episodesPerScenario, args.seed, latest]);
      const hit = crossPlays.get(key);
      if (hit) return { ...hit, cached: true };
      return serially(async () => {
        const out = await crossPlay(args, {
          db: store.path,
          domain: bankingDomain(),
          wrap: yielding,
          onProgress: throttledProgress(o.batchIntervalMs ?? BATCH_INTERVAL_MS, (done, total) =>
            batcher.push({ name: 'crossplay/progress', payload: { das: args.das, cas: args.cas, done, total } }),
          ),
        });
        crossPlays.set(key, out);
        return out;
      });
    },

    'episodes/diff': (args) => serially(() => replayPair(args, { db: store.path, domain: domain(), wrap: yielding, ...models })),

    'episodes/get': ({ id }) => {
      const e = store.getEpisode(id);
      if (!e) throw new Error(`no episode "${id}" in this lab`);
      const llm = llmStore(store.db).callTotals(id);
      return llm.calls > 0 ? { ...e, llm } : e;
    },

    'checkpoints/list': () =>
      checkpoints.list().map((c): CheckpointInfo => ({
        name: c.name,
        role: c.role,
        createdAt: c.createdAt,
        runId: c.runId,
        parent: c.parent,
        generation: c.generation,
        source: c.source,
        humanEpisodes: checkpoints.humanEpisodesSeen(c.name).length,
        provider: c.provider,
        llm: c.llm ? describeLlm(c.llm) : null,
      })),

    'export/episodes': ({ matchId, format }) => {
      // A match, a run (all its matches) or a study (every run's); absent: the whole lab.
      const matchIds = matchId === undefined ? [undefined] : exportMatchIds(store, matchId);
      if (matchIds.length === 0) throw new Error(`export/episodes: no match, run or study "${matchId}" with episodes in this lab`);
      const lines: string[] = format === 'csv' ? [CSV_COLUMNS.join(',')] : [];
      for (const m of matchIds)
        for (let offset = 0; ; offset += EXPORT_PAGE) {
          const page = store.listEpisodes({ matchId: m, offset, limit: EXPORT_PAGE });
          for (const e of page) lines.push(format === 'csv' ? episodeCsvRow(e) : JSON.stringify(episodeToChat(store.getEpisode(e.id)!)));
          if (page.length < EXPORT_PAGE) break;
        }
      const eol = format === 'csv' ? '\r\n' : '\n';
      return {
        filename: `sparring-${matchId ?? 'all'}-episodes.${format}`,
        content: lines.length ? lines.join(eol) + eol : '',
      };
    },

    'results/tables': ({ id, arenaOnly }) => tablesOf(store, id, arenaOnly),
    'export/table': async ({ id, table, format, arenaOnly }) => {
      const t = (await tablesOf(store, id, arenaOnly)).find((x) => x.name === table);
      if (!t) throw new Error(`export/table: ${id} has no table "${table}"`);
      const { filename, content } = tableFile(t, format, id);
      return { filename, content };
    },

    ...labelHandlers(store, labelStore(store.db), (spec) => resolveJudge(spec, { db: store.path, seed: 1 })),
    ...madsHandlers({ store, dbPath: store.path, domain, emit: (e) => batcher.push(e), yielding, release: disposeModel }),
    ...bestResponseHandlers({ dbPath: store.path, domain, emit: (e) => batcher.push(e), ...models }),
    ...caPolicyHandlers({ dbPath: store.path, domain, ...models }),
    ...scenarioHandlers(bankingDomain, customScenarios),
    ...studies.handlers,
    ...knobHandlers(store.db),
    ...modelHandlers({ llm: llmStore(store.db), dbPath: store.path }),
  };

  return {
    handlers: validated(impl),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      if (closed) return;
      closed = true;
      batcher.close();
      unsubscribeRuns();
      studies.close();
      listeners.clear();
      void play.close();
      store.close();
    },
  };
}

/** Wrap each handler so its arguments are checked (zod) before it runs; failures reject. */
function validated(h: Handlers): Handlers {
  const out: Partial<Record<RequestName, (args: unknown) => unknown>> = {};
  for (const name of Object.keys(h) as RequestName[]) {
    const fn = h[name] as (args: unknown) => unknown;
    out[name] = async (args: unknown) => fn(parseArgs(name, args));
  }
  return out as Handlers;
}

/**
 * The same policy, yielding to the event loop every few milliseconds. Scripted policies answer
 * synchronously, so without this a whole match would run in one macrotask and no progress event
 * or other request could get through until it ended. Yielding does not change the outcome: the
 * episode's random streams are passed in, not shared.
 */
export function yielding<P extends DaPolicy | CaPolicy>(policy: P): P {
  let last = Date.now();
  const pause = async () => {
    if (Date.now() - last < YIELD_EVERY_MS) return;
    await new Promise<void>((r) => setImmediate(r));
    last = Date.now();
  };
  // The wrapper keeps the checkpoint the policy resolved to: a match records it.
  const checkpoint = policy.checkpoint ? { checkpoint: policy.checkpoint } : {};
  if ('act' in policy) {
    const p: DaPolicy = { name: policy.name, ...checkpoint, act: async (obs, rng, ctx) => (await pause(), policy.act(obs, rng, ctx)) };
    return p as P;
  }
  const p: CaPolicy = { name: policy.name, ...checkpoint, speak: async (obs, rng, ctx) => (await pause(), policy.speak(obs, rng, ctx)) };
  return p as P;
}
