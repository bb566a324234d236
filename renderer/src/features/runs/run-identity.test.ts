/** Which run is this: the words every picker and heading uses for a run and for a checkpoint's run. */
import { describe, expect, it } from 'vitest';
import { checkpointOf, policyOptionLabel, runChangeSentence, runChangeText, runFacts, runOptionLabel } from './run-identity';
import type { LabIndex } from './run-identity';
import { checkpointInfo, runSummary } from './run-fixtures';

const run = runSummary;
const cp = checkpointInfo;

const lab: LabIndex = {
  runs: [
    run('R1'),
    run('R3', {
      seed: 2,
      study: { id: 'S1', arm: 'no-ca-training' },
      configChange: ['schedule.caGyms unset → false', 'gym.failureShare 0.7 → 0.5'],
      note: 'the ablation for the talk on Monday, with the slower disk',
    }),
  ],
  checkpoints: [cp('DA0', 'R1'), cp('CA0', 'R1', 'CA'), cp('DA5', 'R3'), cp('DA7', 'R3'), cp('DA9', null)],
};

describe('run identity words', () => {
  it("name a run's study arm, seed and preset, and shorten its change from the preset", () => {
    expect(runFacts(lab.runs[1]!)).toBe('R3 · arm no-ca-training of S1 · seed 2 · quick');
    expect(runFacts(run('R4', { preset: '' }))).toBe('R4 · seed 1 · own config');
    expect(runChangeText(lab.runs[1]!)).toBe('schedule.caGyms unset → false (+1 more)');
    expect(runChangeText(lab.runs[0]!)).toBeNull();
    expect(runChangeSentence(lab.runs[0]!)).toBe('the quick preset as it is');
    expect(runChangeSentence(lab.runs[1]!)).toBe('changed from quick: schedule.caGyms unset → false; gym.failureShare 0.7 → 0.5');
    expect(runChangeSentence(run('R4', { preset: '', configChange: null }))).toBe('a config of its own (no preset)');
    // A host from before configChange says nothing rather than "as it is".
    expect(runChangeSentence(run('R5', { configChange: undefined }))).toBeNull();
  });

  it('put the note, cut short, and an unfinished status in a picker option', () => {
    expect(runOptionLabel(lab.runs[1]!)).toBe(
      'R3 · arm no-ca-training of S1 · seed 2 · quick · schedule.caGyms unset → false (+1 more) · “the ablation for the talk on Monday, wi…”',
    );
    expect(runOptionLabel(run('R6', { status: 'running' }))).toBe('R6 · seed 1 · quick · running');
  });

  it("label a checkpoint SPEC with its run; latest resolves to the role's newest; other SPECs stay as they are", () => {
    expect(policyOptionLabel('DA0', 'DA', lab)).toBe('DA0 — R1 · seed 1 · quick');
    expect(checkpointOf('latest', 'DA', lab)?.name).toBe('DA9');
    expect(checkpointOf('latest', 'CA', lab)?.name).toBe('CA0');
    expect(policyOptionLabel('DA7', 'DA', lab)).toMatch(/^DA7 — R3 · arm no-ca-training of S1 · seed 2 · quick · /);
    expect(policyOptionLabel('latest', 'DA', lab)).toBe('latest → DA9 — not from a run (imported)');
    expect(policyOptionLabel('scripted', 'DA', lab)).toBe('scripted');
    expect(policyOptionLabel('sft', 'DA', lab)).toBe('sft');
  });
});
