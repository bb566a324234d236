/**
 * The builtin DA in the arena: after a short SFT it speaks the wire format, states its intent
 * hypotheses, makes nothing up by the judge's reading, and gives the same episodes whether the
 * arena plays them one by one (forwards of one) or many at once (micro-batched forwards).
 */
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { ScriptedCa } from '../core/agents/scripted-ca';
import { runMatch } from '../core/arena/match';
import { selectScenarios } from '../core/arena/scenarios';
import { DEFAULT_CONFIG, withEpisodes } from '../core/config';
import { judgeEpisode } from '../core/judge/judge';
import type { JudgeVerdict } from '../core/judge/types';
import { bankDemos, routingObservation } from '../core/rl/demos';
import { runSft } from '../core/rl/sft';
import { Rng } from '../core/random';
import { parseDaOutput } from '../core/wire';
import { bankingDomain } from '../test/support/banking-domain';
import { BuiltinDa } from './builtin-da';
import { DaModel } from './da-model';

const domain = bankingDomain();
let model: DaModel;

beforeAll(async () => {
  model = await DaModel.create({ intents: domain.taxonomy.map((e) => ({ intent: e.intent, tool: e.tool })), seed: 2 });
  // A small demonstration set (one expert episode per intent, one filling and one camouflaged variant per bank sentence).
  await runSft(model, bankDemos(domain, { seed: 2, episodesPerIntent: 1, fills: 1, camouflaged: 1 }).demos, { epochs: 4, batchSize: 64, lr: 3e-3 });
}, 180_000); // hooks default to 10 s; this trains for a few seconds, longer on a busy machine
afterAll(async () => {
  await model.dispose();
});

const madeUp = (v: JudgeVerdict) => v.hallucinations;

const play = (da: BuiltinDa, concurrency: number) =>
  runMatch({
    matchId: 'M1',
    createdAt: '2026-01-01T00:00:00.000Z',
    domain,
    scenarios: selectScenarios(domain, 'arena'),
    scenarioSet: 'arena',
    da,
    ca: new ScriptedCa(domain),
    judge: judgeEpisode,
    config: withEpisodes(DEFAULT_CONFIG, 2),
    seed: 5,
    concurrency,
  });

describe('BuiltinDa', () => {
  it('plays arena episodes in parseable wire format, with hypotheses in thinking and no made-up facts', async () => {
    const { episodes, match } = await play(new BuiltinDa(model), 4);
    for (const e of episodes) {
      const agent = e.turns.filter((t) => t.role === 'agent');
      expect(agent.length).toBeGreaterThan(0);
      for (const t of agent) {
        expect(t.parseError, t.text).toBeNull();
        const parsed = parseDaOutput(t.text);
        if (!parsed.ok) throw new Error(parsed.error);
        expect(parsed.action.thinking).toMatch(
          /Intent hypotheses: [^,]+ → \w+ \d\.\d\d, [^,]+ → \w+ \d\.\d\d, [^,]+ → \w+ \d\.\d\d -> Next: \w+ \(p \d\.\d\d\)/,
        );
      }
      expect(madeUp(e.judge), `${e.id}: ${e.judge.rationale}`).toEqual([]);
      expect(agent[0]!.tool === 'lookup_account' || agent[0]!.actionType === 'speak').toBe(true);
    }
    // Trained on the expert's episodes, it mostly routes right in the arena.
    expect(match.wDa!).toBeGreaterThan(0.5);
  });

  it('answers concurrent episodes with batched forwards and the same results as one by one', async () => {
    for (const mode of ['greedy', 'sample'] as const) {
      const n0 = model.forwardBatches.length;
      const one = await play(new BuiltinDa(model, { mode }), 1);
      const sequential = model.forwardBatches.slice(n0);
      const n1 = model.forwardBatches.length;
      const many = await play(new BuiltinDa(model, { mode, maxBatch: 8 }), 20);
      const batched = model.forwardBatches.slice(n1);
      expect(many).toEqual(one);
      expect(Math.max(...sequential)).toBe(1);
      expect(Math.max(...batched)).toBe(8);
      expect(batched.length).toBeLessThan(sequential.length / 3);
    }
  });

  it('samples from the policy with the episode stream, and a low temperature approaches greedy', async () => {
    const obs = routingObservation('My card keeps getting declined at the supermarket.');
    const greedy = await new BuiltinDa(model).act(obs, new Rng(1));
    const cold = new BuiltinDa(model, { mode: 'sample', temperature: 0.01 });
    const stream = (s: number) => new Rng(7).fork('draw', s);
    for (let s = 0; s < 5; s++) expect(JSON.parse(await cold.act(obs, stream(s))).content).toBe(JSON.parse(greedy).content);
    const hot = new BuiltinDa(model, { mode: 'sample', temperature: 5 });
    const picks = new Set<string>();
    for (let s = 0; s < 40; s++) picks.add(JSON.parse(await hot.act(obs, stream(s))).content as string);
    expect(picks.size).toBeGreaterThan(1);
    expect(await hot.act(obs, stream(3))).toBe(await hot.act(obs, stream(3)));
    expect(() => new BuiltinDa(model, { temperature: 0 })).toThrow(/temperature must be positive/);
  });
});
