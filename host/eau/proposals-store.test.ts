import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { KnobProposal } from '../../core/eau/proposal';
import { openSqliteStore } from '../store/sqlite-store';
import { proposalStore } from './proposals-store';

const dir = mkdtempSync(join(tmpdir(), 'proposals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const proposal = (knob: string, at: KnobProposal['at']): KnobProposal => ({
  knob,
  value: 3,
  reason: 'why',
  source: { kind: 'diagnostic', name: 'deadlock' },
  evidence: { episodes: ['R1-M1:0'], series: [{ name: 'deadlock rate', points: [[1, 1]] }], figures: { deadlockRate: 1 } },
  at,
});

describe('proposalStore', () => {
  it("keeps a run's proposals in order, as given, once per match or gym, diagnostic and knob", () => {
    const store = openSqliteStore(join(dir, 'lab.db'));
    store.db.prepare("INSERT INTO runs (id, created_at, updated_at, status, seed, config_json) VALUES ('R1', 'now', 'now', 'running', 1, '{}')").run();
    const p = proposalStore(store.db);
    expect(p.recordProposals('R1', [proposal('arena.maxDaTurns', { matchIndex: 1 }), proposal('gym.da.K', { gymId: 'DA1' })])).toBe(2);
    // A resumed run re-running the same diagnostics adds nothing; a later match adds its own.
    expect(p.recordProposals('R1', [proposal('arena.maxDaTurns', { matchIndex: 1 })])).toBe(0);
    expect(p.recordProposals('R1', [proposal('arena.maxDaTurns', { matchIndex: 2 })])).toBe(1);
    const listed = p.listProposals('R1');
    expect(listed.map((r) => [r.proposal.knob, r.proposal.at])).toEqual([
      ['arena.maxDaTurns', { matchIndex: 1 }],
      ['gym.da.K', { gymId: 'DA1' }],
      ['arena.maxDaTurns', { matchIndex: 2 }],
    ]);
    expect(listed[0]!.proposal).toEqual(proposal('arena.maxDaTurns', { matchIndex: 1 }));
    expect(p.listProposals('R2')).toEqual([]);
    store.close();
  });
});
