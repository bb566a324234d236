/**
 * An LLM customer in a match: it speaks whatever the model says (trimmed), each call carries the
 * episode's seed and hidden intent, and its calls are recorded as the CA's, turn by turn.
 */
import { describe, expect, it } from 'vitest';
import { ScriptedDa } from '../../core/agents/scripted-da';
import { runMatch } from '../../core/arena/match';
import { selectScenarios } from '../../core/arena/scenarios';
import { DEFAULT_CONFIG, withEpisodes } from '../../core/config';
import { judgeEpisode } from '../../core/judge/judge';
import { bankingDomain } from '../../test/support/banking-domain';
import type { ChatBackend, ChatRequest, ChatResult } from './chat-backend';
import { PendingLedger } from './ledger';
import { LlmCa } from './llm-ca';

const domain = bankingDomain();

describe('LlmCa', () => {
  it("plays the customer seat from the model's words, with the hidden intent in its prompt", async () => {
    const seen: ChatRequest[] = [];
    const backend: ChatBackend = {
      id: 'cust',
      model: 'm',
      maxConcurrency: 4,
      complete: async (req): Promise<ChatResult> => {
        seen.push(req);
        return {
          text: '  Someone charged my card twice for the same coffee.  ',
          toolCalls: [],
          tokensIn: 50,
          tokensOut: 9,
          latencyMs: 3,
          model: 'm',
          finishReason: 'stop',
        };
      },
    };
    const ledger = new PendingLedger(() => undefined);
    const { episodes } = await runMatch({
      matchId: 'M1',
      createdAt: '',
      domain,
      scenarios: selectScenarios(domain, 'arena').slice(0, 2),
      scenarioSet: 'arena',
      da: new ScriptedDa(),
      ca: new LlmCa(backend, { ledger }),
      judge: judgeEpisode,
      config: withEpisodes(DEFAULT_CONFIG, 2),
      seed: 4,
      concurrency: 4,
    });
    for (const e of episodes) {
      const said = e.turns.filter((t) => t.role === 'customer').map((t) => t.text);
      expect(said.length).toBeGreaterThan(0);
      expect(new Set(said)).toEqual(new Set(['Someone charged my card twice for the same coffee.']));
    }
    expect(seen.every((r) => r.messages[0]!.role === 'system' && typeof r.seed === 'number' && r.temperature === 0.8)).toBe(true);
    expect(episodes.some((e) => seen.some((r) => r.messages[0]!.content!.includes(`"${e.intent}"`)))).toBe(true);
    const customerTurns = episodes.flatMap((e) => e.turns.filter((t) => t.role === 'customer').map((t) => `${e.id}#${t.index}`));
    expect(ledger.records.map((r) => `${r.site!.episodeId}#${r.site!.turn}`).sort()).toEqual(customerTurns.sort());
    expect(ledger.records.every((r) => r.site!.role === 'CA')).toBe(true);
  });
});
