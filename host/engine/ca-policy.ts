/**
 * `sparring ca-policy`: a run's CA, match by match, as its policy stands over that match's
 * openings (core/arena/ca-policy.ts): per head and value, the mean probability and the greedy
 * share. One forward pass per match; nothing is replayed.
 */
import { caPolicyShift, summariseCaPolicy } from '../../core/arena/ca-policy';
import type { CaPolicyMatch, CaPolicyShiftRow } from '../../core/arena/ca-policy';
import type { CaPolicyView, Handlers } from '../../core/contract/contract';
import type { Domain } from '../../core/domain/types';
import type { SessionSettings } from '../../models/session';
import { PolicyCache } from '../coevolution/actors';
import { createRunReader } from '../coevolution/service';
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

/** An arm of a study: how its CA moved from the first match to the last over the seeds that finished. */
export interface StudyCaPolicyArm {
  arm: string;
  seeds: number[];
  rows: CaPolicyShiftRow[];
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
  const store = openSqliteStore(args.db);
  let study: { arms: string[]; entries: { arm: string; seed: number; runId: string; status: string }[] };
  try {
    const studies = studyStore(store.db);
    study = { arms: studies.get(args.studyId).arms, entries: studies.entries(args.studyId) };
  } finally {
    store.close();
  }
  if (args.arm !== undefined && !study.arms.includes(args.arm))
    throw new Error(`study ca-policy: ${args.arm} is not an arm of study ${args.studyId} (${study.arms.join(', ')})`);
  const out: StudyCaPolicyArm[] = [];
  for (const arm of args.arm !== undefined ? [args.arm] : study.arms) {
    const seeds: { seed: number; first: CaPolicyMatch['heads']; last: CaPolicyMatch['heads'] }[] = [];
    for (const e of study.entries.filter((x) => x.arm === arm && x.status === 'finished')) {
      const { matches } = await caPolicy({ db: args.db, domain: args.domain, runId: e.runId, ...(args.session ? { session: args.session } : {}) });
      seeds.push({ seed: e.seed, first: matches[0]!.heads, last: matches.at(-1)!.heads });
    }
    out.push({ arm, seeds: seeds.map((s) => s.seed), rows: caPolicyShift(seeds) });
  }
  return out;
}
