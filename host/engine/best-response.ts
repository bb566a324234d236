/**
 * `sparring best-response`: a stored match's episodes replayed with every opening the CA's action
 * space allows against the match's frozen DA (core/arena/best-response.ts says what the figures
 * mean). The later customer turns are the match's CA, greedy, as in the CA's gym rollouts
 * (core/rl/ca-rollout.ts), and a run's CA speaks its run's train slice of the bank, as it did in
 * the match.
 */
import { allCaChoices } from '../../core/agents/ca-choices';
import type { CaChoice } from '../../core/agents/ca-choices';
import { choiceKey, summariseBestResponse } from '../../core/arena/best-response';
import type { BestResponseEpisode } from '../../core/arena/best-response';
import type { BestResponseView, Handlers } from '../../core/contract/contract';
import type { EngineEvent } from '../../core/contract/run-service';
import { DEFAULT_CONFIG } from '../../core/config';
import type { SparringConfig } from '../../core/config';
import type { Domain } from '../../core/domain/types';
import { daWins } from '../../core/rewards/episode-facts';
import { greedyCaActor, rolloutCa, sliceCaDecisionPoints } from '../../core/rl/ca-rollout';
import { policyActor, recordedFromEpisode } from '../../core/rl/da-rollout';
import type { SessionSettings } from '../../models/session';
import { PolicyCache, trainingDomain, withoutValidation } from '../coevolution/actors';
import { storedRunConfig } from '../../core/coevolution/run-config';
import { checkpointStore } from '../store/checkpoint-store';
import { throttledProgress } from './progress';
import { openSqliteStore } from '../store/sqlite-store';

export interface BestResponseArgs {
  db: string;
  domain: Domain;
  matchId: string;
  session?: SessionSettings;
  /** The columns to try (default: every choice); the CA's greedy opening is added when missing. */
  choices?: readonly CaChoice[];
  onProgress?: (done: number, total: number) => void;
}

/** The report (the contract's BestResponseView: the summary with the match, its checkpoints and its stored W_DA). */
export type BestResponseReport = BestResponseView;

/**
 * A stored match as a replay of its openings needs it: the checkpoints that played it, the config
 * and the domain it was played with (a run's CA spoke its run's train slice), its episodes (fraud
 * references left out) and the CA's decision point at each opening.
 */
export function matchOpenings(store: ReturnType<typeof openSqliteStore>, dbPath: string, labDomain: Domain, matchId: string, what: string) {
  const db = store.db;
  const match = store.getMatch(matchId);
  if (!match) throw new Error(`${what}: no match "${matchId}" in ${dbPath}`);
  const row = db.prepare('SELECT da_checkpoint_name AS da, ca_checkpoint_name AS ca, config_json AS config FROM matches WHERE id = ?').get(matchId) as {
    da: string | null;
    ca: string | null;
    config: string;
  };
  if (!row.da || !row.ca)
    throw new Error(`${what}: match ${matchId} was not played by two checkpoints (DA ${match.daSpec}, CA ${match.caSpec}); it needs a builtin CA's choices`);
  const run = db.prepare("SELECT id, seed, config_json AS configJson FROM runs WHERE ? LIKE id || '-%'").get(matchId) as
    { id: string; seed: number; configJson: string } | undefined;
  const config: SparringConfig = { ...DEFAULT_CONFIG, ...(JSON.parse(row.config) as Partial<SparringConfig>) };
  // A run's match: the CA spoke the run's train slice (without its validation slice, if it keeps one).
  const runConfig = run ? storedRunConfig(run.configJson, `run ${run.id}`) : null;
  const played = run && runConfig ? withoutValidation(labDomain, runConfig, run.seed) : labDomain;
  const domain = run ? trainingDomain({ domain: played, seed: run.seed }) : labDomain;
  const episodes = store
    .listEpisodes({ matchId, limit: store.countEpisodes({ matchId }) })
    .map((s) => store.getEpisode(s.id)!)
    .filter((e) => !e.fraudReference);
  const points = episodes.map((e) => sliceCaDecisionPoints(recordedFromEpisode(e, labDomain.scenarios), config.arena.maxDaTurns)[0]!);
  return { da: row.da, ca: row.ca, runId: run?.id ?? null, config, domain, episodes, points };
}

export async function bestResponse(args: BestResponseArgs): Promise<BestResponseReport> {
  const store = openSqliteStore(args.db);
  const cache = new PolicyCache({ checkpoints: checkpointStore(store.db), domain: args.domain, ...(args.session ? { session: args.session } : {}) });
  try {
    const { da, ca: caName, runId, config, domain, episodes, points } = matchOpenings(store, args.db, args.domain, args.matchId, 'best-response');
    const caModel = await cache.caModel(caName);
    const world = { config, domain, da: policyActor(await cache.da(da)) };
    const ca = greedyCaActor(caModel, domain);
    const columns = [...(args.choices ?? allCaChoices())];
    // The greedy openings first, so every one is a column of the matrix.
    const greedy = (await caModel.greedy(points.map((p) => p.obs))).map((g) => g.action);
    for (const g of greedy) if (!columns.some((c) => choiceKey(c) === choiceKey(g))) columns.push(g);
    const rows: BestResponseEpisode[] = [];
    for (const [i, point] of points.entries()) {
      const out = await rolloutCa(
        world,
        ca,
        columns.map((choice) => ({ point, choice })),
      );
      rows.push({
        intent: episodes[i]!.intent,
        wins: out.map((o) => (daWins(o.transcript) ? 0 : 1)),
        rewards: out.map((o) => o.decisionReward),
        greedy: columns.findIndex((c) => choiceKey(c) === choiceKey(greedy[i]!)),
      });
      args.onProgress?.(i + 1, points.length);
    }
    const wDaStored = episodes.length ? episodes.filter((e) => e.winner === 'DA').length / episodes.length : null;
    return { matchId: args.matchId, da, ca: caName, wDaStored, runId, ...summariseBestResponse(rows, columns) };
  } finally {
    await cache.dispose();
    store.close();
  }
}

/** Progress events of `matches/bestResponse` at most this often (the last one always goes out). */
const PROGRESS_EVERY_MS = 250;

/** `matches/bestResponse` for the engine: one replay at a time, progress as `bestResponse/progress`. */
export function bestResponseHandlers(d: {
  dbPath: string;
  domain: () => Domain;
  emit: (e: EngineEvent) => void;
  session?: SessionSettings;
}): Pick<Handlers, 'matches/bestResponse'> {
  let running: string | null = null;
  return {
    'matches/bestResponse': async ({ matchId }) => {
      if (running) throw new Error(`matches/bestResponse: match ${running} is being replayed; wait for it to finish`);
      running = matchId;
      try {
        return await bestResponse({
          db: d.dbPath,
          domain: d.domain(),
          matchId,
          ...(d.session ? { session: d.session } : {}),
          onProgress: throttledProgress(PROGRESS_EVERY_MS, (done, total) => d.emit({ name: 'bestResponse/progress', payload: { matchId, done, total } })),
        });
      } finally {
        running = null;
      }
    },
  };
}
