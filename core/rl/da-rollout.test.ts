import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../../host/domain-files';
import { DA_CHOICES, dialogueState, extractAmount } from '../agents/da-actions';
import type { DaChoice } from '../agents/da-actions';
import { ScriptedCa } from '../agents/scripted-ca';
import { ScriptedDa } from '../agents/scripted-da';
import { runEpisode, runMatch } from '../arena/match';
import { selectScenarios } from '../arena/scenarios';
import { DEFAULT_CONFIG, withEpisodes } from '../config';
import { judgeEpisode } from '../judge/judge';
import { deriveSeed, Rng } from '../random';
import {
  choiceOf,
  daRolloutReward,
  dropCustomerWords,
  greedyActor,
  policyActor,
  recordedFromEpisode,
  recordedFromTranscript,
  recoveryDecisionPoints,
  renderChoice,
  rolloutDa,
  sliceDecisionPoints,
  sliceEpisodes,
  withinTurnLimit,
} from './da-rollout';
import type { DaObservation } from '../world/environment';
import type { DaDecisionPoint, DaRolloutWorld } from './da-rollout';

const domain = bankingDomain();
const arena = selectScenarios(domain, 'arena');
const config = withEpisodes(DEFAULT_CONFIG, 2);
const ca = new ScriptedCa(domain);
const world: DaRolloutWorld = { config, ca, judge: judgeEpisode };
const scripted = policyActor(new ScriptedDa());

async function playedEpisodes() {
  return runMatch({
    matchId: 'M1',
    createdAt: '2026-01-01T00:00:00.000Z',
    domain,
    scenarios: arena,
    scenarioSet: 'arena',
    da: new ScriptedDa(),
    ca,
    judge: judgeEpisode,
    config,
    seed: 5,
  });
}

describe('the decision-point slicer', () => {
  it('yields one point per DA turn, each with all prior dialogue as its prompt', async () => {
    const { episodes } = await playedEpisodes();
    const e = episodes[3]!;
    const points = sliceDecisionPoints(recordedFromEpisode(e, domain.scenarios), config.arena.maxDaTurns);
    const agentIdx = e.turns.filter((t) => t.role === 'agent').map((t) => t.index);
    expect(points.map((p) => p.source.turnIndex)).toEqual(agentIdx);
    for (const p of points) {
      expect(p.source.episodeId).toBe(e.id);
      expect(p.prefix).toHaveLength(p.source.turnIndex);
      expect(p.obs.turns).toHaveLength(p.source.turnIndex);
      expect(p.obs.turns.map((t) => (t.role === 'customer' ? t.text : t.raw))).toEqual(e.turns.slice(0, p.source.turnIndex).map((t) => t.text));
      expect(p.original.raw).toBe(e.turns[p.source.turnIndex]!.text);
      expect(p.daWon).toBe(e.winner === 'DA');
    }
    // The scripted DA's call sequence reads back as choices.
    expect(points[0]!.original.choice).toBe('lookup_account');
    expect(points.at(-1)!.original.choice).toBe('end_call');
    expect(points.map((p) => p.original.choice)).toContain('explain');
    expect(
      sliceEpisodes(
        episodes.map((x) => recordedFromEpisode(x, domain.scenarios)),
        12,
      ).length,
    ).toBe(episodes.reduce((s, x) => s + x.turns.filter((t) => t.role === 'agent').length, 0));
  });

  it('refuses a recording the environment does not reproduce, naming the episode', async () => {
    const { episodes } = await playedEpisodes();
    const rec = recordedFromEpisode(episodes[0]!, domain.scenarios);
    const tampered = { ...rec, seed: rec.seed + 1 }; // another world: lookup returns another account
    expect(() => sliceDecisionPoints(tampered, 12)).toThrow(/episode M1:0: replaying move \d+ gave a different tool result/);
    expect(() => recordedFromEpisode({ ...episodes[0]!, scenarioId: 'nope' }, domain.scenarios)).toThrow(/episode M1:0: scenario 'nope'/);
  });

  it('cuts an episode played under a longer turn limit where a lower one ends it, so the gym can slice and play it out', async () => {
    // A match played with arena.maxDaTurns 16, its gym run after an EAU write lowered it to 3.
    const { episodes } = await playedEpisodes();
    const rec = episodes.map((e) => recordedFromEpisode(e, domain.scenarios)).find((r) => r.moves.filter((m) => m.role === 'agent').length > 3)!;
    expect(() => sliceDecisionPoints(rec, 3)).toThrow(/the replay ended \(turn_limit\) before move \d+/);
    const cut = withinTurnLimit(rec, 3);
    expect(cut.moves.filter((m) => m.role === 'agent')).toHaveLength(3);
    expect(cut.moves.at(-1)!.role).toBe('agent');
    expect(rec.moves.slice(0, cut.moves.length)).toEqual(cut.moves);
    const points = sliceDecisionPoints(cut, 3);
    expect(points).toHaveLength(3);
    expect(points.map((p) => p.obs.maxDaTurns)).toEqual([3, 3, 3]);
    // Each point plays out under the lower limit: the episode ends at its third DA move at the latest.
    const rollouts = await rolloutDa(
      { ...world, config: { ...config, arena: { ...config.arena, maxDaTurns: 3 } } },
      scripted,
      points.map((point) => ({ point, raw: point.original.raw })),
    );
    for (const r of rollouts) expect(r.transcript.turns.filter((t) => t.role === 'agent').length).toBeLessThanOrEqual(3);
    // An episode within the limit is kept whole.
    expect(withinTurnLimit(rec, 50)).toBe(rec);
  });

  it('reads the DA choice back from a raw output', async () => {
    const { episodes } = await playedEpisodes();
    const p = sliceDecisionPoints(recordedFromEpisode(episodes[0]!, domain.scenarios), 12)[0]!;
    expect(choiceOf('{oops', p.obs)).toBeNull();
    expect(choiceOf(JSON.stringify({ thinking: '', action_type: 'tool_call', content: 'launch_rocket', tool_args: {} }), p.obs)).toBeNull();
    for (const c of ['lookup_account', 'transfer_to_human', 'end_call', 'ask'] as DaChoice[]) expect(choiceOf(renderChoice(c, p.obs), p.obs)).toBe(c);
  });
});

describe('dropCustomerWords', () => {
  const obs: DaObservation = {
    caller: { phone: '555-0100' },
    daSteps: 1,
    maxDaTurns: 12,
    turns: [
      { role: 'customer', text: "there is a charge of $45.20 from Joe's Diner I never made on my card" },
      { role: 'agent', raw: '<tool_call>lookup_account</tool_call>', action: null, toolResult: null },
      { role: 'customer', text: 'hello' },
    ],
  } as unknown as DaObservation;

  it('leaves out customer words only, at about the rate asked, seeded, and keeps what the DA reads as an amount', () => {
    expect(dropCustomerWords(obs, 0, () => 0)).toBe(obs);
    const rng = new Rng(deriveSeed(7, 'drop'));
    let words = 0;
    let kept = 0;
    for (let i = 0; i < 400; i++) {
      const out = dropCustomerWords(obs, 0.3, () => rng.next());
      expect(out.turns[1]).toBe(obs.turns[1]);
      expect(out.turns[2]).toBe(obs.turns[2]); // one word: never emptied
      const t = (out.turns[0] as { text: string }).text;
      expect(extractAmount(t)).toBe(45.2);
      const before = (obs.turns[0] as { text: string }).text.split(' ');
      const after = t.split(' ');
      // The survivors in order, a subsequence of the utterance.
      let j = 0;
      for (const w of after) j = before.indexOf(w, j) + 1;
      expect(j).toBeGreaterThan(0);
      words += before.length;
      kept += after.length;
    }
    // 14 words, one with a digit: 13 of 14 at risk, 0.3 × 13/14 ≈ 0.279 left out.
    expect(1 - kept / words).toBeGreaterThan(0.25);
    expect(1 - kept / words).toBeLessThan(0.31);
    const a = new Rng(3);
    const b = new Rng(3);
    expect(dropCustomerWords(obs, 0.5, () => a.next())).toEqual(dropCustomerWords(obs, 0.5, () => b.next()));
    expect(() => dropCustomerWords(obs, 1, () => 0)).toThrow(/p must be in \[0, 1\)/);
  });
});

describe('rolloutDa', () => {
  it('forced with the original move at every decision point, reproduces the stored episode exactly', async () => {
    const { episodes } = await playedEpisodes();
    for (const e of episodes) {
      const points = sliceDecisionPoints(recordedFromEpisode(e, domain.scenarios), config.arena.maxDaTurns);
      const outs = await rolloutDa(
        world,
        scripted,
        points.map((point) => ({ point, raw: point.original.raw })),
      );
      for (const out of outs) {
        expect(out.transcript.turns.map((t) => (t.role === 'customer' ? t.text : t.raw))).toEqual(e.turns.map((t) => t.text));
        expect(out.transcript.endReason).toBe(e.endReason);
        expect(out.rDa).toBeCloseTo(e.rDa, 10);
        expect(out.terms).toEqual(e.daTerms);
        expect(out.verdict).toEqual(e.judge);
      }
    }
  });

  it('also reproduces a fresh episode from its transcript and seed', async () => {
    const scenario = arena[2]!;
    const seed = deriveSeed(9, scenario.id, 0);
    const o = await runEpisode({ domain, scenario, seed, da: new ScriptedDa(), ca, judge: judgeEpisode, config, matchId: 'X', index: 0 });
    const points = sliceDecisionPoints(recordedFromTranscript(o.transcript, scenario, seed), 12);
    const [out] = await rolloutDa(world, scripted, [{ point: points[1]!, raw: points[1]!.original.raw }]);
    expect(out!.transcript).toEqual(o.transcript);
  });

  it('scores other choices by where they lead: routing wrong costs reward, routing right earns it', async () => {
    const { episodes } = await playedEpisodes();
    // A DA win; its routing decision is the point whose original choice is the expected tool.
    const e = episodes.find((x) => x.winner === 'DA' && x.expectedTool !== 'transfer_to_human')!;
    const points = sliceDecisionPoints(recordedFromEpisode(e, domain.scenarios), 12);
    const routing = points.find((p) => p.original.choice === e.expectedTool)!;
    const reward = daRolloutReward(world, scripted);
    if (typeof reward === 'function') throw new Error('expected a batch reward');
    const wrong = DA_CHOICES.find((c) => c !== e.expectedTool && c !== 'ask' && c !== 'explain' && c !== 'end_call' && c !== 'lookup_account')!;
    const [right, bad, hangUp] = await reward.batch([
      { prompt: routing, action: e.expectedTool },
      { prompt: routing, action: wrong },
      { prompt: routing, action: 'end_call' },
    ]);
    expect(right).toBeGreaterThan(bad!);
    expect(right).toBeGreaterThan(hangUp!);
    expect(hangUp).toBeLessThan(0); // no domain tool: mandatory deduction
  });

  it('runs the rest of many episodes in lock-step with one batched policy call per move', async () => {
    const { episodes } = await playedEpisodes();
    const points: DaDecisionPoint[] = sliceEpisodes(
      episodes.slice(0, 6).map((x) => recordedFromEpisode(x, domain.scenarios)),
      12,
    ).filter((p) => p.source.turnIndex <= 2);
    const batchSizes: number[] = [];
    const greedyScripted = {
      async greedy(obs: readonly DaObservation[]) {
        batchSizes.push(obs.length);
        const da = new ScriptedDa();
        return obs.map((o) => ({ action: choiceOf(da.act(o, null as never), o) ?? 'end_call', logProb: 0 }));
      },
    };
    const items = points.map((point) => ({ point, raw: point.original.raw }));
    const batched = await rolloutDa(world, greedyActor(greedyScripted), items);
    expect(batchSizes[0]).toBe(points.length);
    expect(batchSizes.length).toBeLessThan(points.length * 3);
    // One at a time gives the same episodes.
    for (let i = 0; i < items.length; i++) {
      const [alone] = await rolloutDa(world, greedyActor(greedyScripted), [items[i]!]);
      expect(alone!.transcript.turns.length).toBe(batched[i]!.transcript.turns.length);
      expect(alone!.rDa).toBe(batched[i]!.rDa);
    }
  });

  it('takes an asynchronous judge (an LLM judge): the batch is judged concurrently, the rewards are those of the same verdicts given at once', async () => {
    const { episodes } = await playedEpisodes();
    const points = sliceEpisodes(
      episodes.slice(0, 6).map((x) => recordedFromEpisode(x, domain.scenarios)),
      12,
    ).filter((p) => p.source.turnIndex <= 2);
    const items = points.map((point) => ({ point, raw: point.original.raw }));
    const sync = await rolloutDa(world, scripted, items);
    // A judge that answers later, later for earlier items: verdicts must still land on their own rollout.
    let inFlight = 0;
    let most = 0;
    let n = 0;
    const slow = async (t: Parameters<typeof judgeEpisode>[0]) => {
      inFlight++;
      most = Math.max(most, inFlight);
      const wait = items.length - n++;
      await new Promise((r) => setTimeout(r, wait));
      inFlight--;
      return judgeEpisode(t);
    };
    const async_ = await rolloutDa({ ...world, judge: slow }, scripted, items);
    expect(most).toBe(items.length);
    expect(async_.map((r) => [r.verdict, r.rDa, r.decisionReward])).toEqual(sync.map((r) => [r.verdict, r.rDa, r.decisionReward]));
    // A verdict that differs shows up in the reward: the judge is read, not bypassed.
    const harsh = await rolloutDa({ ...world, judge: async (t) => ({ ...judgeEpisode(t), score: -2 }) }, scripted, items.slice(0, 1));
    const clip = (j: number) => Math.max(-config.daReward.judgeClip, Math.min(config.daReward.judgeClip, j));
    expect(harsh[0]!.rDa).toBeCloseTo(sync[0]!.rDa - clip(sync[0]!.verdict.score) + clip(-2), 9);
  });

  it("'fresh' CA streams skip the prefix calls to the CA", async () => {
    const { episodes } = await playedEpisodes();
    const p = sliceDecisionPoints(recordedFromEpisode(episodes[0]!, domain.scenarios), 12).at(-1)!;
    let calls = 0;
    const counting = { name: 'count', speak: (o: Parameters<ScriptedCa['speak']>[0], r: Parameters<ScriptedCa['speak']>[1]) => (calls++, ca.speak(o, r)) };
    await rolloutDa({ ...world, ca: counting }, scripted, [{ point: p, raw: p.original.raw }]);
    const replayCalls = calls;
    calls = 0;
    await rolloutDa({ ...world, ca: counting, caStream: 'fresh' }, scripted, [{ point: p, raw: p.original.raw }]);
    expect(replayCalls).toBeGreaterThan(0);
    expect(calls).toBe(0); // the last DA move is end_call: nothing more for the CA to say
  });
});

describe('recoveryDecisionPoints', () => {
  it('keeps what follows a dispute that named no charge, and a retry on the answer pays more than ending the call', async () => {
    const disputes = arena.filter((s) => s.expectedTool === 'dispute_charge');
    const points = recoveryDecisionPoints(domain, disputes, ca, { seed: 3, episodes: 1, maxDaTurns: config.arena.maxDaTurns });
    expect(points.length).toBeGreaterThan(0);
    expect(points.every((p) => dialogueState(p.obs).domainCalls.length > 0)).toBe(true);
    const answered = points.filter((p) => dialogueState(p.obs).explained && p.obs.turns.at(-1)?.role === 'customer' && p.original.choice === 'dispute_charge');
    expect(answered.length).toBeGreaterThan(0);
    const reward = daRolloutReward(world, scripted);
    if (typeof reward === 'function') throw new Error('expected a batch reward');
    const [retry, end] = await reward.batch([
      { prompt: answered[0]!, action: 'dispute_charge' },
      { prompt: answered[0]!, action: 'end_call' },
    ]);
    expect(retry!).toBeGreaterThan(end!);
  });
});
