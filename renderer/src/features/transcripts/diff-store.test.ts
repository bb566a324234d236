/**
 * Compare checkpoints opened from an episode: the replay meets the customer the episode met (its
 * match's CA, not "scripted"), A is the DA that played (the checkpoint `latest` named then), and B
 * the DA it was trained from (not "sft").
 */
import { describe, expect, it } from 'vitest';
import type { CheckpointInfo } from '../../../../core/contract/contract';
import { compareFrom, formFromEpisode, useDiffStore } from './diff-store';

const cp = (name: string, role: 'DA' | 'CA', runId: string | null, parent: string | null = null): CheckpointInfo => ({
  name,
  role,
  createdAt: '',
  runId,
  parent,
  generation: 0,
  source: 'gym',
  humanEpisodes: 0,
});
const checkpoints = [
  cp('DA0', 'DA', 'R1'),
  cp('CA0', 'CA', 'R1'),
  cp('DA5', 'DA', 'R2'),
  cp('CA5', 'CA', 'R2'),
  cp('DA6', 'DA', 'R2', 'DA5'),
  cp('CA6', 'CA', 'R2', 'CA5'),
];
const episode = { scenarioId: 'card-dispute', seed: 41 };

describe('Compare checkpoints from an episode', () => {
  it("takes the episode's opponent and the DA it was trained from, not sft and scripted", () => {
    const match = { daSpec: 'latest', caSpec: 'CA6', daCheckpoint: { name: 'DA6', id: 'x' }, caCheckpoint: { name: 'CA6', id: 'y' } };
    expect(formFromEpisode(episode, match, checkpoints)).toEqual({ role: 'DA', scenarioId: 'card-dispute', seed: 41, a: 'DA6', b: 'DA5', opponent: 'CA6' });
    compareFrom(episode, match, checkpoints);
    expect(useDiffStore.getState().form).toEqual({ role: 'DA', scenarioId: 'card-dispute', seed: 41, a: 'DA6', b: 'DA5', opponent: 'CA6' });
  });

  it("falls back to the run's other DA, then to scripted; a person's seat is replayed by the scripted policy", () => {
    const first = { daSpec: 'DA5', caSpec: 'CA5', daCheckpoint: { name: 'DA5', id: 'x' }, caCheckpoint: { name: 'CA5', id: 'y' } };
    expect(formFromEpisode(episode, first, checkpoints)).toMatchObject({ a: 'DA5', b: 'DA6', opponent: 'CA5' });
    const scripted = { daSpec: 'scripted', caSpec: 'human:ana', daCheckpoint: null, caCheckpoint: null };
    expect(formFromEpisode(episode, scripted, checkpoints)).toMatchObject({ a: 'scripted', b: 'sft', opponent: 'scripted' });
    // No match in the list (not loaded yet): the scenario and seed only, the rest as it was.
    expect(formFromEpisode(episode, null, checkpoints)).toEqual({ role: 'DA', scenarioId: 'card-dispute', seed: 41 });
  });
});
