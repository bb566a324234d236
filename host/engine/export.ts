/**
 * Episode export: JSONL in the OpenAI chat fine-tuning format with tool calls (one episode a
 * line, from the DA's point of view), and CSV with one row per episode and every reward term.
 */
import { complexityOf } from '../../core/domain/types';
import type { Complexity, ImpossibleSpec, Persona, Scenario, TaskSpec } from '../../core/domain/types';
import { transcriptOfEpisode, validateTranscript } from '../../core/validators/validators';
import type { AdversityFiring } from '../../core/world/transcript';
import { CA_TERMS, DA_TERMS } from '../../core/rewards/terms';
import type { EpisodeRecord, EpisodeSummary } from '../../core/store/port';
import { DEFAULT_CONFIG } from '../../core/config';
import { csvRow } from '../../core/export/data-table';
import type { RunStore } from '../../core/store/port';
import { studyStore } from '../study/study-store';
import type { Database } from 'better-sqlite3';
import type { ChatMessage, ChatTool } from '../../models/llm/chat-backend';
import { daSystemPrompt, daTools, nativeTurns } from '../../models/llm/da-messages';

export type { ChatMessage, ChatTool } from '../../models/llm/chat-backend';

/** One JSONL line. `metadata` carries what the DA never saw (intent, outcome, rewards). */
export interface ChatExample {
  messages: ChatMessage[];
  tools: ChatTool[];
  metadata: {
    episodeId: string;
    matchId: string;
    scenarioId: string;
    intent: string;
    expectedTool: string;
    routedTool: string | null;
    winner: 'DA' | 'CA';
    endReason: string;
    rDa: number;
    rCa: number;
    judgeScore: number;
    judgeResolved: boolean;
    /** The DA's `thinking` per assistant message, in order (null where the output did not parse). */
    thinking: (string | null)[];
    /** MADS scenario metadata, when the scenario is known: complexity, task, persona, fallback, the adversities that fired. */
    scenario?: {
      complexity: Complexity;
      task?: TaskSpec;
      persona?: Persona;
      impossible?: ImpossibleSpec;
      adversities: AdversityFiring[];
    };
    /** The validators' verdicts (all passed for a `--validated` export). */
    validators?: { validator: string; ok: boolean; reason: string }[];
  };
}

/**
 * A validated episode as a chat example with its scenario's metadata and the validators'
 * verdicts, or null when any validator (syntax, faithfulness, role confusion, task success) fails.
 */
export function validatedChat(e: EpisodeRecord, scenario: Scenario | undefined): ChatExample | null {
  const verdicts = validateTranscript(transcriptOfEpisode(e, scenario), scenario);
  if (!verdicts.every((v) => v.ok)) return null;
  const chat = episodeToChat(e, scenario);
  chat.metadata.validators = verdicts.map((v) => ({ validator: v.validator, ok: v.ok, reason: v.reason }));
  return chat;
}

/**
 * One episode as a chat example in the trained form of `models/llm/da-messages.ts` (the one
 * format every LLM DA trains and plays in): customer = user, the DA's moves function calls with
 * their results as tool messages. The caller ID is the one the DA verified (a successful
 * lookup_account's phone); `maxDaTurns` is the run's turn limit (the prompt states it).
 */
export function episodeToChat(e: EpisodeRecord, scenario?: Scenario, maxDaTurns = DEFAULT_CONFIG.arena.maxDaTurns): ChatExample {
  const lookup = e.turns.find((t) => t.tool === 'lookup_account' && t.toolResult?.ok === true && typeof t.toolArgs?.phone === 'string');
  const phone = (lookup?.toolArgs?.phone as string | undefined) ?? 'unknown';
  const turns = transcriptOfEpisode(e, scenario).turns;
  const messages: ChatMessage[] = [{ role: 'system', content: daSystemPrompt({ caller: { phone }, maxDaTurns }, 'native') }, ...nativeTurns(turns, true)];
  const thinking: (string | null)[] = [];
  for (const t of turns) if (t.role === 'agent') thinking.push(t.action ? t.action.thinking : null);
  return {
    messages,
    tools: daTools(),
    metadata: {
      episodeId: e.id,
      matchId: e.matchId,
      scenarioId: e.scenarioId,
      intent: e.intent,
      expectedTool: e.expectedTool,
      routedTool: e.routedTool,
      winner: e.winner,
      endReason: e.endReason,
      rDa: e.rDa,
      rCa: e.rCa,
      judgeScore: e.judge.score,
      judgeResolved: e.judge.resolved,
      thinking,
      ...(scenario
        ? {
            scenario: {
              complexity: complexityOf(scenario),
              ...(scenario.task ? { task: scenario.task } : {}),
              ...(scenario.persona ? { persona: scenario.persona } : {}),
              ...(scenario.impossible ? { impossible: scenario.impossible } : {}),
              adversities: e.adversities ?? [],
            },
          }
        : {}),
    },
  };
}

export const CSV_COLUMNS = [
  'episode_id',
  'match_id',
  'index',
  'scenario_id',
  'fraud_reference',
  'seed',
  'intent',
  'expected_tool',
  'routed_tool',
  'winner',
  'end_reason',
  'r_da',
  'r_ca',
  ...DA_TERMS.map((t) => `da_${t}`),
  ...CA_TERMS.map((t) => `ca_${t}`),
  'judge_score',
  'judge_resolved',
  'judge_tier',
  'judge_hallucination',
  'judge_rationale',
] as const;

/** One CSV row (no line ending), RFC 4180 quoting, floats rounded (core/export/data-table.ts: 0.29000000000000004 is written 0.29). */
export function episodeCsvRow(e: EpisodeSummary): string {
  const cells: (string | number | boolean | null)[] = [
    e.id,
    e.matchId,
    e.index,
    e.scenarioId,
    e.fraudReference,
    e.seed,
    e.intent,
    e.expectedTool,
    e.routedTool,
    e.winner,
    e.endReason,
    e.rDa,
    e.rCa,
    ...DA_TERMS.map((t) => e.daTerms[t]),
    ...CA_TERMS.map((t) => e.caTerms[t]),
    e.judge.score,
    e.judge.resolved,
    e.judge.tier,
    e.judge.hallucination,
    e.judge.rationale,
  ];
  return csvRow(cells);
}

/**
 * The matches whose episodes an export takes: one match (R1-M3, M1), a run's (R1), or every run's
 * of a study (S1), in order; [] when the id names none of them. `sparring export` and the app's
 * Export screen.
 */
export function exportMatchIds(store: Pick<RunStore, 'getMatch' | 'listMatches'> & { db: Database }, id: string): string[] {
  if (store.getMatch(id)) return [id];
  const all = store.listMatches().map((m) => m.id);
  const study = store.db.prepare('SELECT 1 FROM studies WHERE id = ?').get(id)
    ? studyStore(store.db)
        .entries(id)
        .map((e) => e.runId)
    : null;
  return (study ?? [id]).flatMap((r) => all.filter((m) => m.startsWith(`${r}-M`)));
}
