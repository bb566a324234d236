/**
 * `sparring ca-policy`: a run's CA, match by match, as its policy stands over that match's
 * openings (core/arena/ca-policy.ts): per head and value, the mean probability and the greedy
 * share. One forward pass per match; nothing is replayed.
 */
import { caPolicyShift, summariseCaPolicy } from '../../core/arena/ca-policy';
import type { CaPolicyMatch } from '../../core/arena/ca-policy';
import type { CaPolicyView, Handlers, StudyCaPolicyArm } from '../../core/contract/contract';
import type { Domain } from '../../core/domain/types';
import type { SessionSettings } from '../../models/session';
import { PolicyCache } from '../coevolution/actors';
import { createRunReader } from '../coevolution/run-reader';
import { checkpointStore } from '../store/checkpoint-store';
import { studyStore } from '../study/study-store';
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

type Store = ReturnType<typeof openSqliteStore>;

/** The lab's store and a model cache for one call, closed after `work` whatever it throws. */
async function withLabModels<T>(
  args: { db: string; domain: Domain; session?: SessionSettings },
  work: (store: Store, cache: PolicyCache) => Promise<T>,
): Promise<T> {
  const store = openSqliteStore(args.db);
  const cache = new PolicyCache({ checkpoints: checkpointStore(store.db), domain: args.domain, ...(args.session ? { session: args.session } : {}) });
  try {
    return await work(store, cache);
  } finally {
    await cache.dispose();
    store.close();
  }
}

/** The ids of a run's matches, in order; a run that has played none is refused by name. */
function runMatchIds(store: Store, dbPath: string, runId: string): string[] {
  const ids = createRunReader(store.db, dbPath, () => undefined)
    .get(runId)
    .matchSummaries.map((m) => m.matchId);
  if (ids.length === 0) throw new Error(`ca-policy: run ${runId} has played no match yet`);
  return ids;
}

/** One forward pass of the match's CA over the match's openings. */
async function readMatch(store: Store, cache: PolicyCache, dbPath: string, domain: Domain, matchId: string): Promise<CaPolicyMatch> {
  const m = matchOpenings(store, dbPath, domain, matchId, 'ca-policy');
  if (m.points.length === 0) throw new Error(`ca-policy: match ${matchId} has no opening to read (every episode a fraud reference)`);
  const logp = await (await cache.caModel(m.ca)).headLogProbs(m.points.map((p) => p.obs));
  return { matchId, da: m.da, ca: m.ca, openings: m.points.length, heads: summariseCaPolicy(logp, m.points.length) };
}

export async function caPolicy(args: CaPolicyArgs): Promise<CaPolicyView> {
  return withLabModels(args, async (store, cache) => {
    const ids = args.runId !== undefined ? runMatchIds(store, args.db, args.runId) : (args.matchIds ?? []);
    if (ids.length === 0) throw new Error('ca-policy: name a run or at least one match');
    const matches: CaPolicyMatch[] = [];
    for (const matchId of ids) matches.push(await readMatch(store, cache, args.db, args.domain, matchId));
    return { runId: args.runId ?? null, matches };
  });
}

/** `runs/caPolicy` (every match of a run) and `studies/caPolicy` (a study's arms, first match → last) for the engine. */
export function caPolicyHandlers(d: { dbPath: string; domain: () => Domain; session?: SessionSettings }): Pick<Handlers, 'runs/caPolicy' | 'studies/caPolicy'> {
  const session = d.session ? { session: d.session } : {};
  return {
    'runs/caPolicy': ({ runId }) => caPolicy({ db: d.dbPath, domain: d.domain(), runId, ...session }),
    'studies/caPolicy': ({ studyId, arm }) => studyCaPolicy({ db: d.dbPath, domain: d.domain(), studyId, ...(arm !== undefined ? { arm } : {}), ...session }),
  };
}

/**
 * `sparring study ca-policy S`: for every arm (or the one named), each finished run's first and
 * last match read by `caPolicy`, then `caPolicyShift` over the seeds. Nothing is replayed.
 */
export async function studyCaPolicy(args: {
  db: string;
  domain: Domain;
  studyId: string;
  arm?: string;
  session?: SessionSettings;
}): Promise<StudyCaPolicyArm[]> {
  return withLabModels(args, async (store, cache) => {
    const studies = studyStore(store.db);
    const { arms } = studies.get(args.studyId);
    if (args.arm !== undefined && !arms.includes(args.arm))
      throw new Error(`study ca-policy: ${args.arm} is not an arm of study ${args.studyId} (${arms.join(', ')})`);
    const entries = studies.entries(args.studyId);
    const out: StudyCaPolicyArm[] = [];
    for (const arm of args.arm !== undefined ? [args.arm] : arms) {
      const seeds: { seed: number; first: CaPolicyMatch['heads']; last: CaPolicyMatch['heads'] }[] = [];
      for (const e of entries.filter((x) => x.arm === arm && x.status === 'finished')) {
        // Only the run's first and last matches are read (one, when it played one).
        const ids = runMatchIds(store, args.db, e.runId);
        const first = await readMatch(store, cache, args.db, args.domain, ids[0]!);
        const last = ids.length > 1 ? await readMatch(store, cache, args.db, args.domain, ids.at(-1)!) : first;
        seeds.push({ seed: e.seed, first: first.heads, last: last.heads });
      }
      out.push({ arm, seeds: seeds.map((s) => s.seed), rows: caPolicyShift(seeds) });
    }
    return out;
  });
}
