/**
 * The run store port: what the engine needs from storage. `host/store/sqlite-store.ts`
 * implements it on SQLite, `memory-store.ts` in memory; one contract suite tests both.
 * All methods are synchronous (better-sqlite3 is), and every record is plain data.
 */
import type { CheckpointRef } from '../agents/policy';
import type { DomainTool } from '../domain/types';
import type { CustomerArm } from '../eau/customer-mix';
import type { JudgeVerdict } from '../judge/types';
import type { CaTerms, DaTerms } from '../rewards/terms';
import type { AdversityFiring, EndReason, ToolResult } from '../world/transcript';

export type Winner = 'DA' | 'CA';

/** Per-scenario outcome of a match. */
export interface ScenarioResult {
  scenarioId: string;
  fraudReference: boolean;
  episodes: number;
  daWins: number;
  /** daWins / episodes. */
  daWinRate: number;
}

export interface MatchRecord {
  id: string;
  /** ISO timestamp. */
  createdAt: string;
  seed: number;
  /** The DA policy SPEC as given (`scripted`, `latest`, `sft`, `DA2`, `human:ana`). */
  daSpec: string;
  caSpec: string;
  /**
   * The stored checkpoint `daSpec` resolved to when the match was played: `latest` names a
   * different checkpoint once a newer one exists, this does not. Null for a policy that is not a
   * checkpoint (scripted, a person) and for matches stored before it was recorded (migration 11).
   */
  daCheckpoint: CheckpointRef | null;
  caCheckpoint: CheckpointRef | null;
  /** Which scenarios were played: arena, heldout, fraud or all. */
  scenarioSet: string;
  episodesPerScenario: number;
  /** W_DA: DA win rate over the CA-winnable (non-fraud) scenarios; null when none were played. */
  wDa: number | null;
  /** DA win rate on the fraud-escalation reference scenarios; null when none were played. */
  fraudRate: number | null;
  perScenario: ScenarioResult[];
  /** The effective SparringConfig, as JSON, so a match can be reproduced. */
  configJson: string;
}

export interface TurnRecord {
  /** 0-based position in the episode. */
  index: number;
  role: 'customer' | 'agent';
  /** Customer utterance, or the DA's raw output. */
  text: string;
  /** Parsed DA action type; null for customer turns and unparseable outputs. */
  actionType: 'speak' | 'tool_call' | 'end_call' | null;
  /** Tool name of a tool_call. */
  tool: string | null;
  toolArgs: Record<string, unknown> | null;
  toolResult: ToolResult | null;
  parseError: string | null;
  /** Reward terms earned at this turn (DA terms on agent turns, CA terms on customer turns). */
  rewards: Partial<DaTerms> | Partial<CaTerms>;
}

export interface EpisodeRecord {
  /** `${matchId}:${index}`. */
  id: string;
  matchId: string;
  /** Position in the match. */
  index: number;
  scenarioId: string;
  fraudReference: boolean;
  seed: number;
  intent: string;
  expectedTool: DomainTool;
  /** The first domain tool the DA called, if any. */
  routedTool: string | null;
  winner: Winner;
  endReason: EndReason;
  /** r_DA for the episode (sum of daTerms). */
  rDa: number;
  /** r_CA for the episode (sum of caTerms). */
  rCa: number;
  daTerms: DaTerms;
  caTerms: CaTerms;
  judge: JudgeVerdict;
  turns: TurnRecord[];
  /** MADS adversities that fired, with the turn each shaped; absent when none did. */
  adversities?: AdversityFiring[];
  /**
   * Who played the customer seat under EAU's symbolic-user mix ε (core/eau/customer-mix.ts):
   * the rule-based customer or the learned CA. Absent: no mix (the match's CA played it).
   */
  customer?: CustomerArm;
}

export type EpisodeSummary = Omit<EpisodeRecord, 'turns'>;

export interface EpisodeQuery {
  matchId?: string;
  scenarioId?: string;
  winner?: Winner;
  offset?: number;
  /** Default 100. */
  limit?: number;
}

export interface RunStore {
  /** Store a match and all its episodes atomically: either everything is written or nothing. */
  saveMatch(match: MatchRecord, episodes: readonly EpisodeRecord[]): void;
  /**
   * Store one more episode of a match that grows an episode at a time (an environment server's
   * session, host/env/): the first call creates the match; each call replaces the match's summary
   * (W_DA, fraud rate, per-scenario rates, episodes per scenario) with `match`'s and adds the
   * episode, in one transaction: either both are written or nothing.
   */
  appendEpisode(match: MatchRecord, episode: EpisodeRecord): void;
  getMatch(id: string): MatchRecord | undefined;
  /** Oldest first. */
  listMatches(): MatchRecord[];
  /** Episodes without their turns, ordered by match then index. */
  listEpisodes(q?: EpisodeQuery): EpisodeSummary[];
  countEpisodes(q?: Omit<EpisodeQuery, 'offset' | 'limit'>): number;
  /** One episode with its turns in order. */
  getEpisode(id: string): EpisodeRecord | undefined;
  close(): void;
}
