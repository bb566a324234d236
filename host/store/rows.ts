/**
 * One row type per table of the lab (host/store/migrations.ts), as SQLite hands rows back: the
 * typed `db.prepare<Params, Row>(sql)` statements of the stores return these, so a column is
 * read by name with its type instead of cast at each use. Booleans are 0/1, JSON columns are
 * text, nullable columns are `| null`.
 */
import type { CaTerm, DaTerm } from '../../core/rewards/terms';

/** matches (migrations 1, 11). */
export interface MatchRow {
  seq: number;
  id: string;
  created_at: string;
  seed: number;
  da_spec: string;
  ca_spec: string;
  da_checkpoint_id: string | null;
  da_checkpoint_name: string | null;
  ca_checkpoint_id: string | null;
  ca_checkpoint_name: string | null;
  scenario_set: string;
  episodes_per_scenario: number;
  w_da: number | null;
  fraud_rate: number | null;
  config_json: string;
}

/** match_scenarios (migration 1). */
export interface MatchScenarioRow {
  match_id: string;
  pos: number;
  scenario_id: string;
  fraud_reference: 0 | 1;
  episodes: number;
  da_wins: number;
  da_win_rate: number;
}

/** episodes (migrations 1, 8, 9): a column per reward term, `da_<term>` and `ca_<term>`. */
export type EpisodeRow = {
  id: string;
  match_id: string;
  idx: number;
  scenario_id: string;
  fraud_reference: 0 | 1;
  seed: number;
  intent: string;
  expected_tool: string;
  routed_tool: string | null;
  winner: 'DA' | 'CA';
  end_reason: 'end_call' | 'turn_limit';
  r_da: number;
  r_ca: number;
  judge_score: number;
  judge_resolved: 0 | 1;
  judge_tier: 1 | 2 | 3 | 4;
  judge_hallucination: 0 | 1;
  judge_rationale: string;
  judge_hallucinations_json: string;
  adversities_json: string;
  /** Bits of the MADS validators that failed; null: not computed yet. */
  validator_failed: number | null;
  /** Who played the customer seat under EAU's symbolic-user mix (migration 15); null: no mix. */
  customer: 'symbolic' | 'learned' | null;
} & { [K in `da_${DaTerm}`]: number } & { [K in `ca_${CaTerm}`]: number };

/** turns (migration 1). */
export interface TurnRow {
  episode_id: string;
  idx: number;
  role: 'customer' | 'agent';
  text: string;
  action_type: 'speak' | 'tool_call' | 'end_call' | null;
  tool: string | null;
  tool_args_json: string | null;
  tool_result_json: string | null;
  parse_error: string | null;
}

/** turn_rewards (migration 1). */
export interface TurnRewardRow {
  episode_id: string;
  turn_idx: number;
  term: string;
  value: number;
}

/** play_sessions (migrations 7, 11). */
export interface PlaySessionRow {
  id: string;
  created_at: string;
  updated_at: string;
  player: string;
  seat: 'customer' | 'agent';
  opponent: string;
  opponent_checkpoint_id: string | null;
  opponent_checkpoint_name: string | null;
  scenario_id: string;
  seed: number;
  config_json: string;
  forked_from_episode: string | null;
  forked_from_turn: number | null;
  turns_json: string;
}

/** human_episodes (migration 7). */
export interface HumanEpisodeRow {
  episode_id: string;
  player: string;
  seat: 'customer' | 'agent';
  opponent: string;
  played_at: string;
  forked_from_episode: string | null;
  forked_from_turn: number | null;
}

/** runs (migrations 2, 5). */
export interface RunRow {
  id: string;
  experiment_id: string | null;
  created_at: string;
  updated_at: string;
  status: 'created' | 'running' | 'paused' | 'finished' | 'failed';
  /** 0/1: made for choosing settings on the arena (migration 27). */
  arena_only: number;
  seed: number;
  config_json: string;
  snapshot_json: string | null;
  error: string | null;
  preset: string;
  /** Migration 14: the device the run's policies ran on (DeviceRecord JSON); NULL before. */
  device_json: string | null;
  /** Migration 28: the process driving the run (host/store/run-lease.ts); NULL when none. */
  owner_host: string | null;
  owner_pid: number | null;
  heartbeat_at: string | null;
  /** Migration 28: each metric key's next step at the last phase boundary (JSON); NULL before. */
  metric_marks_json: string | null;
  /** Migration 30: a note a person wrote about the run; NULL when none. */
  note: string | null;
}

/** run_metrics (migration 5). */
export interface RunMetricRow {
  run_id: string;
  phase: string;
  key: string;
  step: number;
  value: number;
}

/** checkpoints (migrations 2, 4, 10) as the checkpoint store selects them: the blobs' sizes, not the blobs. */
export interface CheckpointMetaRow {
  id: string;
  name: string;
  role: 'DA' | 'CA';
  created_at: string;
  run_id: string | null;
  parent_id: string | null;
  generation: number;
  step: number;
  source: string;
  model_json: string;
  metrics_json: string | null;
  training_data_json: string;
  note: string | null;
  /** Migration 14: the execution provider the checkpoint trained on; NULL before. */
  provider: string | null;
  /** Migration 20: an LLM checkpoint's spec (LlmCheckpointSpec as JSON); NULL for builtin weights. */
  llm_json: string | null;
  weight_bytes: number;
  optimiser_bytes: number | null;
}

/** A checkpoints row with its blobs. */
export interface CheckpointRow extends CheckpointMetaRow {
  weights: Buffer;
  optimiser: Buffer | null;
  /** The sha256 the blobs were stored under (migration 23); NULL for inline bytes saved before. */
  weights_hash: string | null;
  optimiser_hash: string | null;
}
