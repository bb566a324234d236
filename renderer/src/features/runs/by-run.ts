/**
 * Pickers' options grouped by the run they come from. A flat list put an imported checkpoint
 * (DA9, no run) or an arena match between a run's own, named like them: a person could not tell
 * which run, if any, an option belonged to. Each run's options come under that run (in the order
 * the list first meets it); what belongs to no run comes last, under one group that says so.
 */
import type { MatchView, RunSummary } from '../../../../core/contract/contract';
import { checkpointOf, runFacts } from './run-identity';
import type { LabIndex } from './run-identity';

/** The group of checkpoints that no run trained (imported, registered by hand, or their run deleted). */
export const NO_RUN_GROUP = 'imported / no run';
/** The group of matches that no run played: the Arena's and Play's. */
export const NO_RUN_MATCHES = 'no run (Arena, Play)';

export interface OptionGroup<T> {
  /** The run's id, or null for the no-run group. */
  runId: string | null;
  label: string;
  items: T[];
}

/** The run a stored match was played in (its id is `RUN-Mk`, host/coevolution/actors.ts), or null. */
export function matchRunId(matchId: string): string | null {
  return /^(.+)-M\d+$/.exec(matchId)?.[1] ?? null;
}

function group<T>(items: readonly T[], runIdOf: (item: T) => string | null, runs: readonly RunSummary[], what: string, noRun: string): OptionGroup<T>[] {
  const byRun = new Map<string, T[]>();
  const none: T[] = [];
  for (const item of items) {
    const id = runIdOf(item);
    if (id === null) none.push(item);
    else byRun.set(id, [...(byRun.get(id) ?? []), item]);
  }
  const groups: OptionGroup<T>[] = [...byRun].map(([runId, list]) => {
    const run = runs.find((r) => r.id === runId);
    return { runId, label: `${what} of ${run ? runFacts(run) : `run ${runId}`}`, items: list };
  });
  if (none.length) groups.push({ runId: null, label: `${what}: ${noRun}`, items: none });
  return groups;
}

/** The lab's matches by run: each run's matches, then the arena's and Play's (no run). */
export function matchesByRun<M extends Pick<MatchView, 'id'>>(matches: readonly M[], runs: readonly RunSummary[]): OptionGroup<M>[] {
  return group(matches, (m) => matchRunId(m.id), runs, 'Matches', NO_RUN_MATCHES);
}

/**
 * Policy SPECs of one role by run: those that name no stored checkpoint (scripted, sft, a saved
 * model, `latest`) stay ungrouped, first; the checkpoints come under their run, and the imported
 * or hand-registered ones (no run) under NO_RUN_GROUP, last.
 */
export function policiesByRun(specs: readonly string[], role: 'DA' | 'CA', lab: LabIndex): { plain: string[]; groups: OptionGroup<string>[] } {
  const isCheckpoint = (spec: string) => spec !== 'latest' && checkpointOf(spec, role, lab) !== null;
  return {
    plain: specs.filter((s) => !isCheckpoint(s)),
    groups: group(specs.filter(isCheckpoint), (s) => checkpointOf(s, role, lab)?.runId ?? null, lab.runs, `${role} checkpoints`, NO_RUN_GROUP),
  };
}
