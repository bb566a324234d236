import { describe, expect, it } from 'vitest';
import type { CheckpointInfo, CrossPlay } from '../../../../core/contract/contract';
import { defaultSides, heatmapData, MAX_SIDE, wrapTitle } from './crossplay.data';

const x: CrossPlay = {
  das: ['DA0', 'DA1'],
  cas: ['CA0'],
  episodesPerScenario: 2,
  seed: 1,
  cached: false,
  daCheckpoints: [
    { name: 'DA0', id: 'DA0' },
    { name: 'DA1', id: 'DA1' },
  ],
  caCheckpoints: [{ name: 'CA0', id: 'CA0' }],
  scenarios: [
    { id: 'fraud', fraudReference: true },
    { id: 'card', fraudReference: false },
  ],
  cells: [
    { da: 'DA0', ca: 'CA0', scenarioId: 'fraud', fraudReference: true, episodes: 2, daWins: 2, daWinRate: 1 },
    { da: 'DA0', ca: 'CA0', scenarioId: 'card', fraudReference: false, episodes: 2, daWins: 0, daWinRate: 0 },
    { da: 'DA1', ca: 'CA0', scenarioId: 'fraud', fraudReference: true, episodes: 2, daWins: 1, daWinRate: 0.5 },
    { da: 'DA1', ca: 'CA0', scenarioId: 'card', fraudReference: false, episodes: 2, daWins: 2, daWinRate: 1 },
  ],
  pairs: [
    { da: 'DA0', ca: 'CA0', wDa: 0 },
    { da: 'DA1', ca: 'CA0', wDa: null },
  ],
};

const cp = (name: string, role: 'DA' | 'CA', generation: number, runId: string | null): CheckpointInfo => ({
  name,
  role,
  generation,
  runId,
  createdAt: `2026-01-0${generation + 1}`,
  parent: null,
  source: 'gym',
  humanEpisodes: 0,
});

describe('cross-play heat map data', () => {
  it('puts W_DA first, then CA-winnable scenarios, then fraud references, one cell per pair', () => {
    const h = heatmapData(x);
    expect(h.panels.map((p) => p.id)).toEqual(['W_DA', 'card', 'fraud']);
    expect(h.panels[0]!.cells).toEqual([
      { da: 'DA0', ca: 'CA0', rate: 0, label: 'W_DA 0%' },
      { da: 'DA1', ca: 'CA0', rate: null, label: 'n/a' },
    ]);
    expect(h.panels[2]).toMatchObject({ title: 'fraud ⚑', fraud: true });
    expect(h.panels[2]!.cells.find((c) => c.da === 'DA1')).toEqual({ da: 'DA1', ca: 'CA0', rate: 0.5, label: 'DA won 1/2' });
  });

  it("defaults to the run's checkpoints, oldest first, at most MAX_SIDE per role", () => {
    const list = [
      ...Array.from({ length: MAX_SIDE + 2 }, (_, g) => cp(`DA${g}`, 'DA', g, 'R1')),
      cp('CA0', 'CA', 0, 'R1'),
      cp('CA9', 'CA', 0, 'R2'),
      cp('DA-x', 'DA', 0, 'R2'),
    ];
    const s = defaultSides(list, 'R1');
    expect(s.das).toEqual(['DA2', 'DA3', 'DA4', 'DA5', 'DA6', 'DA7']);
    expect(s.cas).toEqual(['CA0']);
    expect(defaultSides(list, 'R9').cas).toEqual(['CA0', 'CA9']);
  });
});

describe('cross-play panel titles', () => {
  it('wraps a long title onto a second line at a space instead of cutting it', () => {
    expect(wrapTitle('Card declined', 26)).toEqual(['Card declined']);
    expect(wrapTitle('Unrecognised charge on a card the customer still holds', 26)).toEqual(['Unrecognised charge on a', 'card the customer still…']);
    expect(wrapTitle('Refund for a missing deposit', 26)).toEqual(['Refund for a missing', 'deposit']);
  });
});
