import { describe, expect, it } from 'vitest';
import type { EpisodeDiff, EpisodeRecord } from '../../../../core/contract/contract';
import { diffRows, divergenceText, outcomeRows } from './diff.data';

const turn = (index: number, role: 'customer' | 'agent', text: string, tool: string | null = null) => ({
  index,
  role,
  text,
  actionType: role === 'agent' ? (tool ? ('tool_call' as const) : ('speak' as const)) : null,
  tool,
  toolArgs: tool ? {} : null,
  toolResult: null,
  parseError: null,
  rewards: {},
});
const episode = (tools: string[], winner: 'DA' | 'CA'): EpisodeRecord => ({
  id: 'x',
  matchId: 'diff',
  index: 0,
  scenarioId: 's',
  fraudReference: false,
  seed: 3,
  intent: 'i',
  expectedTool: 'dispute_charge',
  routedTool: tools[1] ?? null,
  winner,
  endReason: 'end_call',
  rDa: winner === 'DA' ? 9.5 : 1.3,
  rCa: 0,
  daTerms: {} as EpisodeRecord['daTerms'],
  caTerms: {} as EpisodeRecord['caTerms'],
  judge: { score: 1, resolved: winner === 'DA', tier: 3, hallucination: false, hallucinations: [], rationale: '' },
  turns: [turn(0, 'customer', 'hi'), ...tools.map((t, i) => turn(i + 1, 'agent', t, t))],
});

const d: EpisodeDiff = {
  role: 'DA',
  opponent: 'scripted',
  scenarioId: 's',
  seed: 3,
  a: { spec: 'DA0', episode: episode(['lookup_account', 'check_card_status', 'x'], 'CA') },
  b: { spec: 'DA2', episode: episode(['lookup_account', 'dispute_charge'], 'DA') },
  divergence: { turn: 2, fields: ['tool', 'text'], rewardTurns: [0, 2], episode: ['winner', 'routedTool'] },
};

describe('diff view data', () => {
  it('aligns the turns and marks before, at and after the first divergence', () => {
    const rows = diffRows(d);
    expect(rows.map((r) => r.state)).toEqual(['same', 'same', 'first', 'after']);
    expect(rows[2]!.fields).toEqual(['tool', 'text']);
    expect(rows[3]!.b).toBeNull();
    expect(rows.map((r) => r.rewardsDiffer)).toEqual([true, false, true, false]);
  });

  it('compares the outcomes field by field', () => {
    const rows = outcomeRows(d);
    expect(rows.find((r) => r.label === 'winner')).toEqual({ label: 'winner', a: 'CA won', b: 'DA won', differs: true });
    expect(rows.find((r) => r.label === 'judge J')!.differs).toBe(false);
    expect(rows.find((r) => r.label === 'judge: resolved')!.differs).toBe(true);
  });

  it('says where the replays part ways', () => {
    expect(divergenceText(d)).toBe('First divergence at turn 2: tool, text.');
    expect(divergenceText({ ...d, divergence: null })).toMatch(/^No divergence/);
  });
});
