/**
 * GRPO smoke-train on the real builtin DA (models/da-model.ts): an untrained network against the
 * scripted CA on two arena scenarios, rewarded by full rollouts of the rest of each episode.
 * A few hundred small steps must raise the mean reward; losses stay finite; weights move.
 */
import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../../host/domain-files';
import { DaModel } from '../../models/da-model';
import { ScriptedCa } from '../agents/scripted-ca';
import { ScriptedDa } from '../agents/scripted-da';
import { runMatch } from '../arena/match';
import { DEFAULT_CONFIG } from '../config';
import { judgeEpisode } from '../judge/judge';
import { daRolloutReward, greedyActor, recordedFromEpisode, sliceEpisodes } from './da-rollout';
import { DA_GRPO, runGrpo } from './grpo';
import type { GrpoStepMetrics } from './grpo';

const domain = bankingDomain();
const maxDaTurns = 8;
const config = { ...DEFAULT_CONFIG, arena: { episodesPerScenario: 3, maxDaTurns } };
const net = { embedDim: 16, hidden: 32, hashing: { buckets: 4096, bagLength: 64, wordNgrams: [1, 2], charNgrams: [3] } };
const session = { intraOpNumThreads: 1 };

describe('GRPO on the builtin DA', () => {
  it('raises the mean rollout reward of an untrained DA against the scripted CA', async () => {
    const scenarios = domain.scenarios.filter((s) => s.set === 'arena' && !s.fraudReference).slice(0, 2);
    const ca = new ScriptedCa(domain);
    // Decision points: every DA turn of a few scripted-vs-scripted arena episodes.
    const { episodes } = await runMatch({
      matchId: 'G',
      createdAt: '2026-01-01T00:00:00.000Z',
      domain,
      scenarios,
      scenarioSet: 'arena',
      da: new ScriptedDa(),
      ca,
      judge: judgeEpisode,
      config,
      seed: 3,
    });
    const points = sliceEpisodes(
      episodes.map((e) => recordedFromEpisode(e, domain.scenarios)),
      maxDaTurns,
    );
    expect(points.length).toBeGreaterThan(10);

    const model = await DaModel.create({ intents: domain.taxonomy.map((t) => ({ intent: t.intent, tool: t.tool })), seed: 1, net, session });
    const start = await model.snapshot();
    const reference = await DaModel.fromSnapshot(start, session);
    const { history } = await runGrpo({
      model,
      reference,
      prompts: points,
      observe: (p) => p.obs,
      reward: daRolloutReward({ config, ca, judge: judgeEpisode }, greedyActor(model)),
      actionKey: (a) => a,
      config: { ...DA_GRPO, promptsPerStep: 4, steps: 150, lr: 3e-3, seed: 2 },
    });

    const window = (h: GrpoStepMetrics[], a: number, b: number) => h.slice(a, b).reduce((s, m) => s + m['gym/reward_mean'], 0) / (b - a);
    const first = window(history, 0, 25);
    const last = window(history, 125, 150);
    expect(last).toBeGreaterThan(first + 1);
    for (const m of history) for (const [k, v] of Object.entries(m)) expect(Number.isFinite(v), k).toBe(true);
    expect(history[0]!['gym/kl']).toBeCloseTo(0, 5); // starts at the reference
    expect(history.at(-1)!['gym/kl']).toBeGreaterThan(0);
    expect(history.some((m) => m['gym/loss'] !== undefined && m['gym/grad_norm']! > 0)).toBe(true);
    // Parameters moved; the reference did not.
    const after = await model.snapshot();
    expect(Buffer.from(after.weights).equals(Buffer.from(start.weights))).toBe(false);
    expect(Buffer.from((await reference.snapshot()).weights).equals(Buffer.from(start.weights))).toBe(true);
    await model.dispose();
    await reference.dispose();
  });
});
