/**
 * Pickers group their options by run: a checkpoint or a match of no run (imported, registered by
 * hand, the arena's, Play's) sits under "imported / no run", not between a run's own.
 */
import { describe, expect, it } from 'vitest';
import { matchesByRun, matchRunId, NO_RUN_GROUP, NO_RUN_MATCHES, policiesByRun } from './by-run';
import type { LabIndex } from './run-identity';
import { checkpointInfo, runSummary } from './run-fixtures';

const run = (id: string, seed: number) => runSummary(id, { seed, matches: 2 });
const cp = checkpointInfo;

const lab: LabIndex = {
  runs: [run('R1', 1), run('R10', 2)],
  // Lab order: an imported DA between two runs' checkpoints, and an orphan whose run was deleted (run_id set null).
  checkpoints: [cp('DA0', 'R1'), cp('DA1', 'R1'), cp('DA9', null), cp('DA2', 'R10'), cp('CA0', 'R1', 'CA'), cp('DA3', 'R7')],
};

describe('options by run', () => {
  it('reads the run from a match id, R10 not taken for R1', () => {
    expect(matchRunId('R1-M3')).toBe('R1');
    expect(matchRunId('R10-M1')).toBe('R10');
    expect(matchRunId('M4')).toBeNull();
  });

  it('groups matches under their run, and the arena’s and Play’s last under no run', () => {
    const groups = matchesByRun([{ id: 'M1' }, { id: 'R1-M1' }, { id: 'R10-M1' }, { id: 'M2' }, { id: 'R1-M2' }], lab.runs);
    expect(groups.map((g) => [g.runId, g.label, g.items.map((m) => m.id)])).toEqual([
      ['R1', 'Matches of R1 · seed 1 · quick', ['R1-M1', 'R1-M2']],
      ['R10', 'Matches of R10 · seed 2 · quick', ['R10-M1']],
      [null, `Matches: ${NO_RUN_MATCHES}`, ['M1', 'M2']],
    ]);
  });

  it('keeps scripted, sft, latest and models ungrouped, checkpoints under their run, imported ones under no run', () => {
    const { plain, groups } = policiesByRun(['scripted', 'sft', 'latest', 'DA0', 'DA1', 'DA9', 'DA2', 'DA3', 'my-endpoint'], 'DA', lab);
    expect(plain).toEqual(['scripted', 'sft', 'latest', 'my-endpoint']);
    expect(groups.map((g) => [g.label, g.items])).toEqual([
      ['DA checkpoints of R1 · seed 1 · quick', ['DA0', 'DA1']],
      ['DA checkpoints of R10 · seed 2 · quick', ['DA2']],
      // A run the lab no longer lists still names its checkpoints' group.
      ['DA checkpoints of run R7', ['DA3']],
      [`DA checkpoints: ${NO_RUN_GROUP}`, ['DA9']],
    ]);
  });
});
