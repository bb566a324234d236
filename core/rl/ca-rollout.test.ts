import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../../host/domain-files';
import { ScriptedCa } from '../agents/scripted-ca';
import { ScriptedDa } from '../agents/scripted-da';
import { runMatch } from '../arena/match';
import { selectScenarios } from '../arena/scenarios';
import { DEFAULT_CONFIG, withEpisodes } from '../config';
import { judgeEpisode } from '../judge/judge';
import { recordedFromEpisode } from './da-rollout';
import { isOpeningPoint, sliceCaDecisionPoints } from './ca-rollout';

const domain = bankingDomain();
const config = withEpisodes(DEFAULT_CONFIG, 1);

describe("the CA gym's decision points", () => {
  it('are one per customer turn, the first of each episode its opening (what gym.caDecisions "openings" keeps)', async () => {
    const { episodes } = await runMatch({
      matchId: 'M1',
      createdAt: '2026-01-01T00:00:00.000Z',
      domain,
      scenarios: selectScenarios(domain, 'arena'),
      scenarioSet: 'arena',
      da: new ScriptedDa(),
      ca: new ScriptedCa(domain),
      judge: judgeEpisode,
      config,
      seed: 3,
    });
    let answers = 0;
    for (const e of episodes) {
      const points = sliceCaDecisionPoints(recordedFromEpisode(e, domain.scenarios), config.arena.maxDaTurns);
      expect(points.map((p) => p.source.turnIndex)).toEqual(e.turns.filter((t) => t.role === 'customer').map((t) => t.index));
      expect(points.map(isOpeningPoint)).toEqual(points.map((_, i) => i === 0));
      // The opening sees no dialogue yet; every later point sees the agent's words before it.
      expect(points[0]!.obs.dialogue).toEqual([]);
      for (const p of points.slice(1)) expect(p.obs.dialogue.at(-1)?.role).toBe('agent');
      answers += points.length - 1;
    }
    // The scripted DA asks before it acts, so the filter has answers to leave out.
    expect(answers).toBeGreaterThan(0);
  });
});
