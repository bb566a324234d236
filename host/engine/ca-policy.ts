/**
 * `sparring ca-policy`: a run's CA, match by match, as its policy stands over that match's
 * openings (core/arena/ca-policy.ts): per head and value, the mean probability and the greedy
 * share. One forward pass per match; nothing is replayed.
 */
import { summariseCaPolicy } from '../../core/arena/ca-policy';
import type { CaPolicyMatch } from '../../core/arena/ca-policy';
import type { CaPolicyView, Handlers } from '../../core/contract/contract';
import type { Domain } from '../../core/domain/types';
import type { SessionSettings } from '../../models/session';
import { PolicyCache } from '../coevolution/actors';
import { createRunReader } from '../coevolution/service';
import { checkpointStore } from '../store/checkpoint-store';
import { openSqliteStore } from '../store/sqlite-store';
import { matchOpenings } from './best-response';

export interface CaPolicyArgs {
  db: string;
  domain: Domain;
  /** Every match of this run, in order … */
  runId?: string;
  /** … or these matches. */
  matchIds?: readonly string[];
  session?: SessionSettings;
}

export async function caPolicy(args: CaPolicyArgs): Promise<CaPolicyView> {
  const store = openSqliteStore(args.db);
  const cache = new PolicyCache({ checkpoints: checkpointStore(store.db), domain: args.domain, ...(args.session ? { session: args.session } : {}) });
  try {
    let ids = args.matchIds ?? [];
    if (args.runId !== undefined) {
      const run = createRunReader(store.db, args.db, () => undefined).get(args.runId);
      ids = run.matchSummaries.map((m) => m.matchId);
      if (ids.length === 0) throw new Error(`ca-policy: run ${args.runId} has played no match yet`);
    }
    if (ids.length === 0) throw new Error('ca-policy: name a run or at least one match');
    const matches: CaPolicyMatch[] = [];
    for (const matchId of ids) {
      const m = matchOpenings(store, args.db, args.domain, matchId, 'ca-policy');
      if (m.points.length === 0) throw new Error(`ca-policy: match ${matchId} has no opening to read (every episode a fraud reference)`);
      const model = await cache.caModel(m.ca);
      const logp = await model.headLogProbs(m.points.map((p) => p.obs));
      matches.push({ matchId, da: m.da, ca: m.ca, openings: m.points.length, heads: summariseCaPolicy(logp, m.points.length) });
    }
    return { runId: args.runId ?? null, matches };
  } finally {
    await cache.dispose();
    store.close();
  }
}

/** `runs/caPolicy` for the engine: every match of a run. */
export function caPolicyHandlers(d: { dbPath: string; domain: () => Domain; session?: SessionSettings }): Pick<Handlers, 'runs/caPolicy'> {
  return {
    'runs/caPolicy': ({ runId }) => caPolicy({ db: d.dbPath, domain: d.domain(), runId, ...(d.session ? { session: d.session } : {}) }),
  };
}
