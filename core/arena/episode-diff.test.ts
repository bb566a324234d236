import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../../host/domain-files';
import type { DaPolicy } from '../agents/policy';
import { ScriptedCa } from '../agents/scripted-ca';
import { ScriptedDa } from '../agents/scripted-da';
import { DEFAULT_CONFIG } from '../config';
import { judgeEpisode } from '../judge/judge';
import { diffEpisodes } from './episode-diff';
import { runEpisode } from './match';

const domain = bankingDomain();
const scenario = domain.scenarios.find((s) => s.set === 'arena' && !s.fraudReference)!;
const play = (da: DaPolicy, seed = 11) =>
  runEpisode({ domain, scenario, seed, da, ca: new ScriptedCa(domain), judge: judgeEpisode, config: DEFAULT_CONFIG, matchId: 'd', index: 0 }).then(
    (o) => o.record,
  );

/** The scripted DA, except that its first domain tool call names another tool. */
function misrouting(): DaPolicy {
  const inner = new ScriptedDa();
  return {
    name: 'misrouting',
    async act(obs, rng) {
      const raw = inner.act(obs, rng);
      const v = JSON.parse(raw) as { action_type: string; content: string; tool_args: Record<string, unknown> };
      if (v.action_type !== 'tool_call' || v.content === 'lookup_account') return raw;
      return JSON.stringify({ ...v, content: v.content === 'transfer_to_human' ? 'get_transactions' : 'transfer_to_human', tool_args: {} });
    },
  };
}

describe('diffEpisodes', () => {
  it('finds no divergence between two replays of one scenario and seed by the same policy', async () => {
    expect(diffEpisodes(await play(new ScriptedDa()), await play(new ScriptedDa()))).toBeNull();
  });

  it('points at the first turn where the behaviour differs, not at hindsight credit before it', async () => {
    // An episode the scripted DA routes right (its first domain tool is the scenario's), so that
    // misrouting changes the outcome and the credit of the turns before it.
    let seed = 1;
    const routesRight = (r: Awaited<ReturnType<typeof play>>) =>
      r.turns.find((t) => t.actionType === 'tool_call' && t.tool !== 'lookup_account')?.tool === scenario.expectedTool;
    while (!routesRight(await play(new ScriptedDa(), seed))) expect(++seed, 'a seed the scripted DA routes right').toBeLessThan(50);
    const a = await play(new ScriptedDa(), seed);
    const b = await play(misrouting(), seed);
    const d = diffEpisodes(a, b)!;
    const firstToolCall = a.turns.findIndex((t) => t.actionType === 'tool_call' && t.tool !== 'lookup_account');
    expect(d.turn).toBe(firstToolCall);
    expect(d.fields).toEqual(expect.arrayContaining(['tool', 'args']));
    // Turns before agree word for word; the customer's first turn is credited differently (r_inv-DA).
    for (let i = 0; i < firstToolCall; i++) expect(b.turns[i]!.text).toBe(a.turns[i]!.text);
    expect(d.rewardTurns[0]).toBeLessThan(firstToolCall);
    expect(d.episode).toEqual(expect.arrayContaining(['routedTool', 'daTerms']));
  });

  it('treats a missing turn as a divergence and ignores key order', async () => {
    const a = await play(new ScriptedDa());
    const shorter = { ...a, turns: a.turns.slice(0, -1) };
    expect(diffEpisodes(a, shorter)).toMatchObject({ turn: a.turns.length - 1, fields: ['role'] });
    const reordered = { ...a, daTerms: Object.fromEntries(Object.entries(a.daTerms).reverse()) as typeof a.daTerms };
    expect(diffEpisodes(a, reordered)).toBeNull();
  });
});
