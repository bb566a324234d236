import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../../host/domain-files';
import { ScriptedCa } from '../agents/scripted-ca';
import { ScriptedDa } from '../agents/scripted-da';
import { runEpisode, scoreEpisode } from '../arena/match';
import { DEFAULT_CONFIG } from '../config';
import { judgeEpisode } from '../judge/judge';
import type { AgentTurn } from '../world/transcript';
import { HumanEpisode, MAX_MESSAGE_CHARS, PlayError } from './human-episode';
import type { ReplayTurn } from './human-episode';

const domain = bankingDomain();
const scenario = domain.scenarios.find((s) => s.set === 'arena' && s.expectedTool === 'dispute_charge')!;
const base = { domain, scenario, seed: 11, config: DEFAULT_CONFIG, judge: judgeEpisode, matchId: 'H1', index: 0 };
const arena = () => runEpisode({ ...base, da: new ScriptedDa(), ca: new ScriptedCa(domain) });

describe('HumanEpisode', () => {
  it("a person typing the scripted customer's words gets the arena episode, judged and rewarded the same", async () => {
    const { record } = await arena();
    const ep = new HumanEpisode({ ...base, seat: 'customer' });
    const da = new ScriptedDa();
    for (const said of record.turns.filter((t) => t.role === 'customer').map((t) => t.text)) {
      await ep.advance(da);
      ep.act({ kind: 'say', text: said });
    }
    await ep.advance(da);
    expect(ep.done).toBe(true);
    expect(scoreEpisode(base, ep.transcript()).record).toEqual(record);
  });

  it('replays a stored head on the same seeded world and refuses one whose tool result no longer matches', async () => {
    const { record } = await arena();
    const toolTurn = record.turns.findIndex((t) => t.toolResult !== null);
    const head = (n: number): ReplayTurn[] => record.turns.slice(0, n).map((t) => ({ role: t.role, text: t.text, toolResult: t.toolResult }));
    const ep = new HumanEpisode({ ...base, seat: 'agent', replay: head(toolTurn + 1) });
    expect(ep.turns).toHaveLength(toolTurn + 1);
    expect((ep.turns[toolTurn] as AgentTurn).toolResult).toEqual(record.turns[toolTurn]!.toolResult);

    const tampered = head(toolTurn + 1);
    tampered[toolTurn] = { ...tampered[toolTurn]!, toolResult: { ok: false, tool: 'x', error: { code: 'NOT_FOUND', message: 'x' } } };
    expect(() => new HumanEpisode({ ...base, seat: 'agent', replay: tampered })).toThrow(new RegExp(`turn ${toolTurn}: replaying .* another tool result`));
    expect(() => new HumanEpisode({ ...base, seat: 'agent', replay: [{ role: 'agent', text: '{}' }] })).toThrow(/turn 0: it is the customer's turn/);
  });

  it('the agent seat plays lookup, the domain tool, an explanation and end_call for the full DA reward sequence', async () => {
    const ep = new HumanEpisode({ ...base, seat: 'agent' });
    await ep.advance(new ScriptedCa(domain));
    ep.act({ kind: 'tool_call', tool: 'lookup_account', args: { phone: ep.callerPhone() }, thinking: 'verify first' });
    const lookup = (ep.turns.at(-1) as AgentTurn).toolResult!;
    expect(lookup.ok).toBe(true);
    const account = (lookup.ok ? lookup.data : {}) as { accounts: { account_id: string }[] };
    const facts = ep.customerBrief().facts;
    ep.act({
      kind: 'tool_call',
      tool: 'dispute_charge',
      args: { account_id: account.accounts[0]!.account_id, merchant: facts.merchant, reason: 'unrecognized' },
      thinking: 'dispute',
    });
    ep.act({ kind: 'speak', text: 'I have filed a dispute for that charge.', thinking: 'explain' });
    await ep.advance(new ScriptedCa(domain));
    ep.act({ kind: 'end_call', text: 'Goodbye!', thinking: 'done' });
    expect(ep.done).toBe(true);
    const { record } = scoreEpisode(base, ep.transcript());
    expect(record.routedTool).toBe('dispute_charge');
    expect(record.daTerms.tool).toBe(DEFAULT_CONFIG.daReward.toolCorrect);
    expect(record.daTerms.env_correct_tool).toBe(DEFAULT_CONFIG.daReward.correctToolVerified);
    expect(record.daTerms.env_lookup_first).toBe(DEFAULT_CONFIG.daReward.lookupFirst);
  });

  it('refuses invalid moves with the field named and changes nothing', async () => {
    const ep = new HumanEpisode({ ...base, seat: 'agent' });
    expect(() => ep.act({ kind: 'speak', text: 'hello' })).toThrow(/customer's turn, not yours/);
    await ep.advance(new ScriptedCa(domain));
    const before = ep.turns.length;
    const bad: [Parameters<HumanEpisode['act']>[0], RegExp][] = [
      [{ kind: 'speak', text: '   ' }, /text: the message is empty/],
      [{ kind: 'speak', text: 'x'.repeat(MAX_MESSAGE_CHARS + 1) }, new RegExp(`${MAX_MESSAGE_CHARS + 1} characters; at most ${MAX_MESSAGE_CHARS}`)],
      [{ kind: 'tool_call', tool: 'refund_everything', args: {} }, /tool: no tool named "refund_everything"/],
      [{ kind: 'tool_call', tool: 'get_transactions', args: { account_id: 'a', limit: 9 } }, /get_transactions: Limit must be at most 5\./],
      [{ kind: 'tool_call', tool: 'dispute_charge', args: { account_id: 'a', reason: 'because' } }, /dispute_charge: Reason /],
      [{ kind: 'tool_call', tool: 'lookup_account', args: { phone: '1', extra: true } }, /lookup_account: Arguments has unknown field "extra"/],
      [{ kind: 'say', text: 'hi' }, /"say" is the customer's/],
    ];
    for (const [action, message] of bad) {
      expect(() => ep.act(action)).toThrow(PlayError);
      expect(() => ep.act(action)).toThrow(message);
    }
    expect(ep.turns).toHaveLength(before);
    expect(ep.daSteps).toBe(0);
  });
});
