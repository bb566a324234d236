import { describe, expect, it } from 'vitest';
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- the test builds the report with the engine's own builder (what the transport would carry); no core value reaches the renderer's bundle
import { heldoutReport } from '../../../../core/arena/heldout-report';
import { sameOutcomeNotes } from './heldout-same.data';

/** Held-out metrics from per-scenario (routing, strict, reward) triples, one episode each. */
const metrics = (rows: [string, number, number, number][]) => ({
  episodes: rows.length,
  routingAccuracy: rows.reduce((s, r) => s + r[1], 0) / rows.length,
  strictPass: rows.reduce((s, r) => s + r[2], 0) / rows.length,
  fail: rows.filter((r) => r[2] === 0).length / rows.length,
  meanReward: rows.reduce((s, r) => s + r[3], 0) / rows.length,
  lookupFirst: 1,
  perScenario: rows.map(([scenarioId, routingAccuracy, strictPass, meanReward]) => ({ scenarioId, episodes: 1, routingAccuracy, strictPass, meanReward })),
});
const gate = { threshold: 0.9, scenarios: ['g'], episodes: 8, daWinRate: 1, passed: true };

// The quick run of issue 52 (seed 1, before the preset changed): DA0's evaluation against CA2 and
// against the scripted CA, stored alike scenario by scenario (the customers' openings differed in
// every episode; DA0 misrouted refund-missing-h and left internal-transfer-h unresolved against both).
const da0 = metrics([
  ['dispute-unrecognized-h', 1, 1, 9.5],
  ['refund-missing-h', 0, 0, 1.3],
  ['internal-transfer-h', 1, 0, 3.5],
  ['card-declined-h', 1, 1, 9.5],
]);

describe('why Table 4 can show equal figures', () => {
  it('says so when a checkpoint has the same result against the run’s CA and the scripted CA in every scenario', () => {
    const report = heldoutReport({ checkpoints: [{ da: 'DA0', ca: 'CA2', heldout: da0, gate, reference: { ca: 'scripted', heldout: da0, gate } }] })!;
    const notes = sameOutcomeNotes(report);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^DA0: the same result against CA2 and the scripted CA in each of the 4 held-out scenarios \(1 episode each\)/);
  });

  it('says so when a checkpoint has the same result as the one before it in every scenario (every change ±0)', () => {
    const da1 = metrics([
      ['dispute-unrecognized-h', 1, 1, 9.5],
      ['refund-missing-h', 1, 1, 9.5],
      ['internal-transfer-h', 1, 0, 3.5],
      ['card-declined-h', 1, 1, 9.5],
    ]);
    const scripted = metrics([
      ['dispute-unrecognized-h', 1, 1, 9.5],
      ['refund-missing-h', 0, 0, 1.3],
      ['internal-transfer-h', 1, 1, 9.5],
      ['card-declined-h', 1, 1, 9.5],
    ]);
    const report = heldoutReport({
      checkpoints: [
        { da: 'DA0', ca: 'CA3', heldout: da0, gate, reference: { ca: 'scripted', heldout: scripted, gate } },
        { da: 'DA1', ca: 'CA3', heldout: da0, gate, reference: { ca: 'scripted', heldout: scripted, gate } },
        { da: 'DA2', ca: 'CA3', heldout: da1, gate, reference: { ca: 'scripted', heldout: scripted, gate } },
      ],
    })!;
    const notes = sameOutcomeNotes(report);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^DA1 = DA0: the same result in each held-out scenario \(1 episode each\), so every change reads ±0/);
  });

  it('says nothing when the results differ somewhere', () => {
    const other = metrics([
      ['dispute-unrecognized-h', 1, 1, 9.5],
      ['refund-missing-h', 0, 0, 1.3],
      ['internal-transfer-h', 1, 1, 9.5],
      ['card-declined-h', 1, 1, 9.5],
    ]);
    const report = heldoutReport({ checkpoints: [{ da: 'DA0', ca: 'CA2', heldout: da0, gate, reference: { ca: 'scripted', heldout: other, gate } }] })!;
    expect(sameOutcomeNotes(report)).toEqual([]);
  });
});
