import { describe, expect, it } from 'vitest';
import { bankingDomain } from '../../host/domain-files';
import { ScriptedCa } from '../agents/scripted-ca';
import { ScriptedDa } from '../agents/scripted-da';
import { DEFAULT_CONFIG } from '../config';
import { runEpisode } from '../arena/match';
import { selectScenarios } from '../arena/scenarios';
import { judgeEpisode } from '../judge/judge';
import { deriveSeed, Rng } from '../random';
import { withAdversityProfile } from '../world/adversities';
import { LearnerEpisode } from './learner-episode';

const domain = bankingDomain();
const config = DEFAULT_CONFIG;
const common = { domain, config, judge: judgeEpisode, matchId: 'E1', index: 0 };

describe('LearnerEpisode', () => {
  it('a DA learner answering as the scripted DA plays exactly the arena episode of that seed', async () => {
    for (const scenario of selectScenarios(domain, 'arena')) {
      for (const k of [0, 1]) {
        const seed = deriveSeed(5, scenario.id, k);
        const ref = await runEpisode({ ...common, scenario, seed, da: new ScriptedDa(), ca: new ScriptedCa(domain) });
        const ep = await LearnerEpisode.start({ ...common, scenario, seed, opponent: { role: 'CA', policy: new ScriptedCa(domain) } });
        const da = new ScriptedDa();
        const rng = new Rng(seed).fork('da');
        while (!ep.done) {
          const o = ep.observe();
          if (o.role !== 'DA') throw new Error('expected the DA to move');
          await ep.act(da.act(o.view, rng));
        }
        expect(ep.outcome?.record).toStrictEqual(ref.record);
        expect(ep.steps).toBe(ref.record.turns.filter((t) => t.role === 'agent').length);
      }
    }
  });

  it('a CA learner answering as the scripted CA plays the arena episode too, adversities included', async () => {
    const adv = withAdversityProfile(domain);
    for (const scenario of selectScenarios(adv, 'arena').slice(0, 4)) {
      const seed = deriveSeed(9, scenario.id, 0);
      const ref = await runEpisode({ ...common, domain: adv, scenario, seed, da: new ScriptedDa(), ca: new ScriptedCa(adv) });
      const ep = await LearnerEpisode.start({ ...common, domain: adv, scenario, seed, opponent: { role: 'DA', policy: new ScriptedDa() } });
      const ca = new ScriptedCa(adv);
      const rng = new Rng(seed).fork('ca');
      expect(ep.observe().role).toBe('CA');
      while (!ep.done) {
        const o = ep.observe();
        if (o.role !== 'CA') throw new Error('expected the CA to move');
        await ep.act(ca.speak(o.view, rng));
      }
      expect(ep.outcome?.record).toStrictEqual(ref.record);
    }
  });

  it('refuses a move after the end', async () => {
    const scenario = selectScenarios(domain, 'arena')[0]!;
    const ep = await LearnerEpisode.start({ ...common, scenario, seed: 1, opponent: { role: 'CA', policy: new ScriptedCa(domain) } });
    while (!ep.done) await ep.act('{"thinking":"x","action_type":"end_call","content":"bye","tool_args":{}}');
    await expect(ep.act('hello')).rejects.toThrow(/episode is over/);
  });
});
