import { describe, expect, it } from 'vitest';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import { ScriptedDa } from '../../core/agents/scripted-da';
import { runMatch } from '../../core/arena/match';
import { selectScenarios } from '../../core/arena/scenarios';
import { DEFAULT_CONFIG, withEpisodes } from '../../core/config';
import { judgeEpisode } from '../../core/judge/judge';
import { transcriptOfEpisode, validateTranscript } from '../../core/validators/validators';
import { bankingDomain } from '../domain-files';
import { validatedChat } from './export';

describe('validated export', () => {
  it('keeps exactly the episodes that pass every validator, with scenario metadata and the adversities that fired', async () => {
    const domain = bankingDomain();
    const scenarios = selectScenarios(domain, 'robustness');
    const { episodes } = await runMatch({
      matchId: 'M1',
      createdAt: '',
      domain,
      scenarios,
      scenarioSet: 'robustness',
      da: new ScriptedDa(),
      ca: new ScriptedCa(domain),
      judge: judgeEpisode,
      config: withEpisodes(DEFAULT_CONFIG, 3),
      seed: 5,
    });
    const byId = new Map(scenarios.map((s) => [s.id, s]));
    let kept = 0;
    for (const e of episodes) {
      const s = byId.get(e.scenarioId)!;
      const passes = validateTranscript(transcriptOfEpisode(e, s), s).every((v) => v.ok);
      const chat = validatedChat(e, s);
      expect(chat !== null).toBe(passes);
      if (!chat) continue;
      kept++;
      expect(chat.metadata.validators?.map((v) => v.ok)).toEqual([true, true, true, true]);
      expect(chat.metadata.scenario?.complexity).toBe(s.complexity);
      expect(chat.metadata.scenario?.adversities).toEqual(e.adversities ?? []);
      expect(chat.messages[0]!.role).toBe('system');
    }
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(episodes.length);
  });
});
