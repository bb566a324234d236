/**
 * The typed contract between the engine and its clients (the renderer in Electron or in a
 * browser, and tests). One map each of commands, queries and events; `send(name, args)` is the
 * only call. Only plain, serialisable data crosses. The renderer imports types from here and
 * nothing else from core/.
 */
import type { CheckpointRef } from '../agents/policy';
import type { StoppingConfig } from '../config';
import type { EpisodeQuery, EpisodeRecord, EpisodeSummary, MatchRecord } from '../store/port';
import type { GymSummary, MatchSummary } from '../coevolution/run.machine';
import type { AuditReport, LabelItemView, LabelKind, LabelQueueInfo, LabelValue, OwnLabel, TacticReport } from '../labels/types';
import type { HumanAction } from '../play/human-episode';
import type { Winner } from '../store/port';
import type { ToolResult } from '../world/transcript';
import type { EpisodeDivergence } from '../arena/episode-diff';
import type { ValidatorName, ValidatorVerdict } from '../validators/validators';
import type { MadsReport } from '../validators/mads-metrics';
import type { Complexity, Scenario } from '../domain/types';
import type { FieldProblem, ScenarioDraft } from '../domain/schema';
import type { StudyRunStatus, StudySummary } from '../coevolution/study-summary';
import type { EstimateScenarios, EstimateSlice, EstimateTables } from '../coevolution/study-estimate';
import type { BestResponseSummary } from '../arena/best-response';
import type { CaPolicyMatch, CaPolicyShiftRow } from '../arena/ca-policy';
import type { DeviceRecord } from './device';
import type { HeldoutReport } from '../arena/heldout-report';
import type { PanelSummary } from '../arena/panel';
import type { KnobConsole, KnobHistoryRow, KnobWriteResult } from '../eau/view';
import type { RunSettings } from '../coevolution/run-settings';

/** Plain-data records that cross the boundary, re-exported so clients import types from here only. */
export type { EpisodeQuery, EpisodeRecord, EpisodeSummary, MatchRecord, ScenarioResult, TurnRecord, Winner } from '../store/port';
export type { CheckpointRef } from '../agents/policy';

/** What the LLM calls behind an episode cost (absent when no LLM played in it). */
export interface LlmCallTotals {
  calls: number;
  /** Calls the lab's response cache answered. */
  cached: number;
  tokensIn: number;
  tokensOut: number;
  /** Summed call latency, ms. */
  latencyMs: number;
  /** The LLM judge's share of these calls (`--judge NAME`, a run's `judge`); absent when no LLM judged. */
  judge?: Omit<LlmCallTotals, 'judge'>;
}

/** A stored episode as the transcript view shows it: with its LLM calls' cost when LLMs played. */
export type EpisodeView = EpisodeRecord & { llm?: LlmCallTotals };
/** A stored match as the Arena lists it: with its LLM calls' cost (all episodes) when LLMs played. */
export type MatchView = MatchRecord & { llm?: LlmCallTotals };

/**
 * A model saved in the lab (Models screen), usable by name as a DA or CA policy: an
 * OpenAI-compatible endpoint (`kind: 'endpoint'`), or a local GGUF file (`kind: 'gguf'`, `file`).
 */
export interface ModelInfo {
  name: string;
  kind: 'endpoint' | 'gguf';
  /** The served model id (an endpoint's `--model`). */
  model: string;
  /** Endpoints: the OpenAI-compatible base URL. */
  baseUrl: string | null;
  /** GGUF entries: the file. */
  file?: string;
  /** The environment variable holding the API key (the key is never stored nor sent). */
  apiKeyEnv: string | null;
  /** Whether that variable is set where the engine runs; null when the endpoint needs none. */
  apiKeySet: boolean | null;
  toolCalls: 'native' | 'text';
  /** Calls at once: an endpoint's max concurrency, a GGUF file's context sequences. */
  maxConcurrency: number;
  /** GGUF entries: the file's SHA-256 (checked when it loads), where it runs, its context window and CPU threads. */
  gguf?: { sha256: string; gpu: 'auto' | 'cpu' | 'cuda' | 'vulkan' | 'metal'; contextSize: number; threads: number };
}

/** What a local GGUF file is saved with (the Models screen's form, `sparring models add NAME --gguf FILE`); absent settings take the defaults. */
export interface ModelAddGgufArgs {
  name: string;
  /** The .gguf file's path where the engine runs. */
  file: string;
  gpu?: 'auto' | 'cpu' | 'cuda' | 'vulkan' | 'metal';
  contextSize?: number;
  threads?: number;
  sequences?: number;
}

/** What an endpoint is saved with (the Models screen's form, `sparring models add`). */
export interface ModelAddArgs {
  name: string;
  baseUrl: string;
  model: string;
  apiKeyEnv?: string;
  toolCalls: 'native' | 'text';
  maxConcurrency: number;
}

/** A model's round trip: one DA turn, timed and parsed, and the server's models (or why not). */
export interface ModelTestResult {
  endpoint: string;
  /** The model the server says answered. */
  model: string;
  latencyMs: number;
  tokensIn: number;
  tokensOut: number;
  tokensPerS: number | null;
  finishReason: string;
  /** The reply in the wire format, as the parser read it. */
  raw: string;
  parsed: { action_type: string; content: string } | null;
  parseError: string | null;
  serverModels: string[] | string;
}
export type { GymSummary, MatchSummary } from '../coevolution/run.machine';
export type { StopDecision, WeakerAgent } from '../coevolution/stopping';
export type { TacticSummary } from '../coevolution/tactics';
import type { DataTable, TableFormat } from '../export/data-table';
export type { CellValue, DataTable, TableFormat } from '../export/data-table';
export type { JudgeVerdict } from '../judge/types';
export type { CaTerms, DaTerms } from '../rewards/terms';
export type { ToolResult } from '../world/transcript';
export type * from '../labels/types';
export type { EpisodeDivergence, EpisodeField, TurnField } from '../arena/episode-diff';
export type { ValidatorName, ValidatorVerdict } from '../validators/validators';
export type { MadsGroup, MadsReport } from '../validators/mads-metrics';
export type { AdversitySpec, Complexity, Persona, TaskSpec } from '../domain/types';
export type { FieldProblem, ScenarioDraft } from '../domain/schema';
export type { ArmSummary, PairSummary, StudyRunStatus, StudySummary } from '../coevolution/study-summary';
export type { MeanInterval, PairedDifference } from '../stats/intervals';
export type { EstimateScenarios, EstimateSlice, EstimateTables } from '../coevolution/study-estimate';
export type * from '../eau/view';
export type { EffectMark, MeasuredEffect } from '../eau/effect';
export type { DiagnosticName, Evidence, EvidenceSeries, KnobProposal } from '../eau/proposal';
export type { HeldoutCell, HeldoutMetricKey, HeldoutMetricRow, HeldoutReport, HeldoutScenarioRow, HeldoutTable } from '../arena/heldout-report';
export type { PanelCell, PanelCounterpart, PanelMetric, PanelRow, PanelSummary, ReplayStats } from '../arena/panel';
export type { GrpoSettingsView, RunSettings } from '../coevolution/run-settings';

export type { StoppingConfig };

export type RunStatus = 'created' | 'running' | 'paused' | 'finished' | 'failed' | 'stopped';
export type RunPhase = 'bootstrap' | 'match' | 'decide' | 'gym' | 'waiting-for-trainer' | 'boundary' | 'paused' | 'evaluate' | 'done' | 'stopped' | 'failed';

export type GymJobStatus = 'waiting' | 'done' | 'failed' | 'cancelled';

/**
 * A gym handed to an external trainer (run config gym.da.trainer / gym.ca.trainer 'external'):
 * the run waits in 'waiting-for-trainer' until `sparring checkpoints add` registers the trained
 * checkpoint (done) or `sparring gym cancel` ends the wait (the run keeps `from`).
 */
export interface GymJobInfo {
  id: string;
  runId: string;
  /** The gym's number in the run (1: the first), as `sparring gym export --gym N`. */
  gym: number;
  role: 'DA' | 'CA';
  /** The checkpoint the gym trains from, and the frozen opponent. */
  from: string;
  opponent: string;
  matchId: string;
  /** The folder the gym was exported to (gym.jsonl, job.json). */
  exportPath: string;
  status: GymJobStatus;
  createdAt: string;
  finishedAt: string | null;
  /** The checkpoint registered for it (done). */
  checkpoint: string | null;
  note: string | null;
  /** What to run next, in order (serve the world, train, register the result), while it waits. */
  commands?: string[];
}

export interface PresetInfo {
  name: string;
  description: string;
  /** The preset's config as JSON (editable in the config editor). */
  configJson: string;
  /** The opponent pool an IB-RL schedule starts from (core/presets.ts IB_RL_DEFAULTS), for the schedule picker. */
  ibRlPool?: { pBoth: number; pDa: number; pCa: number };
  /**
   * How long a run of it took in this lab: the median wall time of its finished runs that kept the
   * preset as it is (no config change), and how many there were; null when none has finished here.
   */
  measured?: { seconds: number; runs: number } | null;
  /** Its budget in words, for a first guess at its time ("at most 3 matches of 3 episodes per scenario"). */
  budget?: string;
}

export interface RunSummary {
  id: string;
  createdAt: string;
  status: RunStatus;
  phase: RunPhase;
  preset: string;
  seed: number;
  matches: number;
  /** W_DA of the latest match, when there is one. */
  lastWDa: number | null;
  error: string | null;
  /** Being executed by this engine now (pause/stop work); a `running` run that is not live was interrupted and can be resumed. */
  live: boolean;
  /** The device its policies ran on (the latest start or resume); null: not recorded (runs from before devices were). */
  device?: DeviceRecord | null;
  /** A pause was asked for and takes effect when the current phase ends (status still `running`). */
  pauseRequested: boolean;
  /** The share of the bank's train slice its config keeps out as a validation slice (`validation.bankShare`); null: none. */
  validationShare?: number | null;
  /**
   * Made for choosing settings on the arena (`sparring run --arena-only`, a run of an arena-only
   * study): it plays and stores its held-out evaluation as any run, and its views leave that out
   * unless asked for by name.
   */
  arenaOnly?: boolean;
  /** The study and arm the run belongs to (a study's (arm, seed) run); null: a run of its own. Absent in hosts from before it. */
  study?: { id: string; arm: string } | null;
  /**
   * What its config changes from its preset, one short line per leaf (`gym.failureShare 0.7 → 0.5`,
   * core/coevolution/run-identity.ts); [] the preset as it is; null a whole config of its own (no preset).
   */
  configChange?: string[] | null;
  /** A note a person wrote about the run (the app, `sparring runs note`); null: none. */
  note?: string | null;
}

export interface RunDetail extends RunSummary {
  configJson: string;
  /**
   * The stopping rule's constants this run runs under (τ_DA, P, ε, n_min, n_max, r_CA, gate),
   * parsed by the host from its config with the defaults filled in: the renderer reads them here
   * and never parses the config or repeats a default.
   */
  stopping: StoppingConfig;
  /**
   * The settings this run runs with, resolved by the host from its config as the runner resolves
   * them (defaults spelled out): null when the stored config no longer parses. Absent in hosts
   * from before it.
   */
  settings?: RunSettings | null;
  matchSummaries: MatchSummary[];
  gyms: GymSummary[];
  /** The latest progress report of the current phase. */
  progress: ProgressReport | null;
  /** The evaluation as stored by the runner (plain data). */
  evaluation: unknown;
  /** The evaluation as RL-ADA's Table 4 (intervals, Δ from DA0, per scenario); null when there is none or it predates the format. */
  heldout: HeldoutReport | null;
  /** Its gyms handed to an external trainer, by gym number (absent: none). */
  gymJobs?: GymJobInfo[];
  /** The final DA's panel evaluation (counterpart shift, `sparring eval --panel`); null or absent when none was run. */
  panel?: RunPanel | null;
}

/** A DA's panel evaluation as stored in the lab (core/arena/panel.ts): per counterpart, averaged, and the mismatch gap. */
export interface RunPanel {
  da: string;
  /** The seeds and episodes it was measured under. */
  protocol: string;
  summary: PanelSummary;
}

export interface ProgressReport {
  phase: RunPhase;
  /** e.g. "match 3 of ≤8", "DA gym step 40/200". */
  label: string;
  done: number;
  total: number;
  /** Seconds left by the current rate; null when unknown. */
  etaSeconds: number | null;
}

export interface CheckpointInfo {
  name: string;
  role: 'DA' | 'CA';
  createdAt: string;
  runId: string | null;
  parent: string | null;
  generation: number;
  source: string;
  /** Human-played episodes its weights saw in training: its own gyms' and its ancestors'. */
  humanEpisodes: number;
  /** The execution provider it trained on ('cpu', 'webgpu', …); null or absent: not recorded (older or imported). */
  provider?: string | null;
  /** An LLM checkpoint (an external trainer's result): its model spec in words; null or absent: builtin weights. */
  llm?: string | null;
}

/** One point of a metric series (gym curves). */
export interface MetricPoint {
  step: number;
  value: number;
  /** The training phase that logged it: 'bootstrap:DA0-sft', 'bootstrap:DA0-grpo', 'bootstrap:CA0', 'gym:DA1', … */
  phase?: string;
}

export interface EpisodeFilter extends EpisodeQuery {
  /** Only episodes whose judge verdict is resolved / not. */
  resolved?: boolean;
  /** Only episodes with a hallucination. */
  hallucination?: boolean;
  /** Only episodes on which this MADS validator (or any of them) failed. */
  validatorFailed?: 'any' | ValidatorName;
}

/** What the engine serves and what it can do (shown in the app's header and empty states). */
export interface EngineInfo {
  /** The lab file (SQLite) the engine reads and writes. */
  dbPath: string;
  /** Null when co-evolution runs are available; otherwise why not, in words for the UI. */
  runsUnavailable: string | null;
  /** Policy SPECs `matches/play` accepts now, per role (`scripted`, then `latest` and checkpoint names). */
  policies: { da: string[]; ca: string[] };
}

/** Human play (Play screen): a person in one seat, a policy in the other. */
export type PlaySeat = 'customer' | 'agent';
export type { HumanAction };

/** A turn as the player sees it while playing (the agent's speech and thinking unpacked). */
export interface PlayTurn {
  index: number;
  role: PlaySeat;
  actionType: 'speak' | 'tool_call' | 'end_call' | null;
  /** The customer's words, or the agent's message for speak / end_call. */
  said: string | null;
  thinking: string | null;
  tool: string | null;
  toolArgs: Record<string, unknown> | null;
  toolResult: ToolResult | null;
  parseError: string | null;
}

export interface PlayView {
  sessionId: string;
  player: string;
  seat: PlaySeat;
  /** The policy SPEC in the other seat. */
  opponent: string;
  /** The checkpoint `opponent` resolved to (`latest` → DA3); null for the scripted policies. */
  opponentCheckpoint: CheckpointRef | null;
  status: 'playing' | 'finished';
  forkedFrom: { episodeId: string; turn: number } | null;
  /** The customer's private brief: the customer seat sees it from the start, the agent seat after the call. */
  customer: { intent: string; scenarioId: string; scenarioTitle: string; situation: string; name: string; facts: Record<string, string | number> } | null;
  /** Caller ID, which lookup_account verifies. */
  callerPhone: string;
  turns: PlayTurn[];
  yourTurn: boolean;
  daSteps: number;
  maxDaTurns: number;
  /** The stored episode (judge verdict, every reward term) once the call is over. */
  episode: EpisodeRecord | null;
}

/** An unfinished human episode kept in the lab (resume or discard). */
export interface PlaySessionSummary {
  sessionId: string;
  player: string;
  seat: PlaySeat;
  opponent: string;
  /** The checkpoint `opponent` resolved to (`latest` → DA3); null for the scripted policies. */
  opponentCheckpoint: CheckpointRef | null;
  turns: number;
  updatedAt: string;
  forkedFrom: { episodeId: string; turn: number } | null;
}

/** A stored human-played episode and who played it. */
export interface HumanEpisodeInfo {
  episodeId: string;
  player: string;
  seat: PlaySeat;
  opponent: string;
  /** The checkpoint `opponent` resolved to (`latest` → DA3); null for the scripted policies. */
  opponentCheckpoint: CheckpointRef | null;
  playedAt: string;
  forkedFrom: { episodeId: string; turn: number } | null;
  winner: Winner;
  rDa: number;
  rCa: number;
}

/** One field of a tool's argument form, from the tool's schema (the one the tools backend checks). */
export interface ToolField {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'enum';
  required: boolean;
  options?: string[];
}

export interface PlaySetup {
  scenarios: { id: string; title: string; set: string; fraudReference: boolean }[];
  tools: { name: string; fields: ToolField[] }[];
  maxMessageChars: number;
}

/** Two policies of one role replaying a scenario and seed against the same opponent. */
export interface DiffArgs {
  role: 'DA' | 'CA';
  /** Policy SPECs of `role` (e.g. `DA0`, `DA2`, `scripted`). */
  a: string;
  b: string;
  /** The other role's SPEC, the same for both replays. */
  opponent: string;
  scenarioId: string;
  /** The episode seed (a stored episode's `seed` replays its world and opponent). */
  seed: number;
}

/** Both replays and their first divergence (null: the same episode turn for turn). */
export interface EpisodeDiff extends Omit<DiffArgs, 'a' | 'b'> {
  a: { spec: string; episode: EpisodeRecord };
  b: { spec: string; episode: EpisodeRecord };
  divergence: EpisodeDivergence | null;
}

/** Cross-play of stored checkpoints on the arena scenarios (Evaluation's heat map). */
export interface CrossPlayArgs {
  /** DA policy SPECs (rows), e.g. DA0, DA1. */
  das: string[];
  /** CA policy SPECs (columns). */
  cas: string[];
  episodesPerScenario: number;
  seed: number;
}

export interface CrossPlayCell {
  da: string;
  ca: string;
  scenarioId: string;
  fraudReference: boolean;
  episodes: number;
  daWins: number;
  daWinRate: number;
}

export interface CrossPlay extends CrossPlayArgs {
  /** The checkpoint each of `das` resolved to, in order (null: scripted). */
  daCheckpoints: (CheckpointRef | null)[];
  caCheckpoints: (CheckpointRef | null)[];
  scenarios: { id: string; fraudReference: boolean }[];
  /** One cell per DA × CA × scenario. */
  cells: CrossPlayCell[];
  /** W_DA of each pair (CA-winnable scenarios). */
  pairs: { da: string; ca: string; wDa: number | null }[];
  /** Served from the engine's cache (played earlier in this session). */
  cached: boolean;
}

/**
 * A stored match replayed with every opening of the CA's action space against its frozen DA
 * (core/arena/best-response.ts): what the action space allows beside what the CA played.
 */
export interface BestResponseView extends BestResponseSummary {
  matchId: string;
  da: string;
  ca: string;
  /** W_DA the match stored (its own rendering of the same openings' words; close to wDaGreedy, not equal). */
  wDaStored: number | null;
  /** The run the match belongs to (its CA spoke that run's train slice of the bank), or null. */
  runId: string | null;
}

/** A run's CA over its matches' openings, per head and value (core/arena/ca-policy.ts, `sparring ca-policy`). */
export interface CaPolicyView {
  /** The run read, or null for matches named one by one. */
  runId: string | null;
  matches: CaPolicyMatch[];
}

/** An arm of a study: how its CA moved from the first match to the last over the seeds that finished (`sparring study ca-policy`). */
export interface StudyCaPolicyArm {
  arm: string;
  /** The seeds read: the arm's finished runs. */
  seeds: number[];
  rows: CaPolicyShiftRow[];
}

/** One (arm, seed) of a study and its run. */
export interface StudyRunInfo {
  arm: string;
  seed: number;
  runId: string;
  status: StudyRunStatus;
  error: string | null;
  matches: number;
  /** W_DA per match of the run (the per-seed small multiples). */
  wDa: number[];
  /** The processor it last ran on ("AMD EPYC 7B13, AVX2"); null when not recorded. */
  host: string | null;
}

/** A running study's progress: jobs are its runs plus the fixed-opponent arms' extra evaluations. */
export interface StudyProgressInfo {
  total: number;
  finished: number;
  failed: number;
  /** finished + failed + the running jobs' estimated fractions. */
  value: number;
  running: { arm: string; seed: number; runId: string; phase: string; label: string }[];
}

export interface StudyInfo {
  id: string;
  createdAt: string;
  preset: string;
  arms: string[];
  seeds: number[];
  /** 'interrupted': no live process runs it (killed, or the machine restarted); `studies/resume` continues it. */
  status: 'running' | 'interrupted' | 'finished' | 'failed';
  /** Being run by this engine now; a `running` study that is not live is run by another process (`owner`). */
  live: boolean;
  /** The process that runs or last ran it (a CLI's, or an engine's), null when none holds it. */
  owner: { host: string; pid: number; heartbeatAt: string } | null;
  /**
   * Made for choosing settings on the arena (`sparring study --arena-only`, `studies/start`'s
   * `arenaOnly`): its tables come without held-out or panel figures unless `studies/get` asks for them.
   */
  arenaOnly: boolean;
  progress: StudyProgressInfo | null;
  runs: StudyRunInfo[];
}

/** A study with its tables (per arm mean [95% CI] over seeds, paired differences against full). */
export interface StudyDetail extends StudyInfo {
  tauDa: number;
  /** `summary` carries no held-out or panel figure (an arena-only study asked for without `heldout`). */
  heldoutHidden: boolean;
  /** The processors its runs ran on, with how many runs each (core/coevolution/study-summary.ts's studyHosts). */
  hosts: { host: string; runs: number }[];
  summary: StudySummary;
  /** Each custom arm with its overlay on the study's base (what its runs' config changes). */
  customArms: { arm: string; overlay: Record<string, unknown> }[];
  /**
   * The arena-only estimates of the held-out gain stored for it (`studies/estimate`, `sparring
   * study estimate`), per slice of the bank the CA spoke; null where none is stored.
   */
  arenaEstimate: Record<EstimateSlice, EstimateTables | null>;
  /** The same on synthetic scenarios of the intents beyond the arena (`studies/estimate` with `scenarios: 'other-intents'`). */
  otherIntentsEstimate: Record<EstimateSlice, EstimateTables | null>;
}

export interface ArmInfo {
  name: string;
  description: string;
}

/** `labs/merge` (`sparring lab merge`): one table's rows from the other lab (host/store/lab-merge.ts). */
export interface LabMergeCounts {
  /** Rows in the other lab. */
  incoming: number;
  /** Rows added here (renamed ones included). */
  added: number;
  /** Rows already here: merged before, or the same row under the same key. */
  present: number;
  /** Added under a new key because theirs was taken here. */
  renamed: number;
  /** The same key here holds something else: this lab's row kept (labels: both kept, see disagreements). */
  conflicts: number;
}

/** The same annotator's labels of the same item, different in the two labs: both kept, theirs under `keptAs`. */
export interface LabelDisagreement {
  queueId: string;
  pos: number;
  annotator: string;
  keptAs: string;
  here: string | null;
  theirs: string | null;
}

export interface LabMergeReport {
  file: string;
  /** The other lab's id (lab_meta), by which its rows are recognised next time. */
  sourceLab: string;
  /** The other lab's schema version before it was migrated (in a temporary copy) for the merge. */
  sourceVersion: number;
  dryRun: boolean;
  seconds: number;
  tables: Record<string, LabMergeCounts>;
  /** Renamed ids of tables with ids of their own (checkpoints DA0 → DA7, runs R1 → R5, …); at most 200 listed. */
  renamed: { table: string; from: string; to: string }[];
  disagreements: LabelDisagreement[];
  /** Rows under a shared key that differ here (an endpoint, a custom scenario): this lab's were kept. */
  conflicts: { table: string; key: string }[];
}

export interface Commands {
  /** Start a co-evolution run from a preset, optionally with an edited config (JSON). */
  /** `arenaOnly`: a run for choosing settings on the arena (RunSummary.arenaOnly; `sparring run --arena-only`). */
  'runs/start': (args: { preset: string; configJson?: string; seed?: number; arenaOnly?: boolean }) => { runId: string };
  'runs/pause': (args: { runId: string }) => { ok: true };
  'runs/resume': (args: { runId: string }) => { ok: true };
  'runs/stop': (args: { runId: string }) => { ok: true };
  /** Write (or, with an empty text, clear) a run's note: `sparring runs note R "…"` in the app. Announced as `run/note`. */
  'runs/note': (args: { runId: string; note: string }) => RunSummary;
  /**
   * Play one arena match and store it. With `run`, as that run's own matches play (its config,
   * adversities and judge; a CA speaking the run's train slice of the bank), as `sparring match --run`;
   * `speak: 'validation'` has the CA speak the run's validation slice instead (`--speak validation`).
   */
  'matches/play': (args: {
    da: string;
    ca: string;
    episodesPerScenario: number;
    scenarios: 'arena' | 'heldout' | 'fraud' | 'all' | 'robustness';
    seed: number;
    run?: string;
    speak?: 'train' | 'validation';
  }) => { matchId: string };
  /** Episodes as JSONL (OpenAI chat format with tool calls) or CSV. `matchId`: a match, a run (all its matches) or a study (every run's); absent: every match of the lab. */
  'export/episodes': (args: { matchId?: string; format: 'jsonl' | 'csv' }) => { filename: string; content: string };
  /** Labelling (issue 6, core/labels/types.ts): a queue of openings (tactic) or episodes (audit) sampled per match, stratified by scenario. */
  'labels/create-queue': (args: { kind: LabelKind; matchIds?: string[]; perMatch?: number; seed?: number; labels?: string[] }) => LabelQueueInfo;
  'labels/add-annotator': (args: { name: string }) => { name: string };
  /** Upsert the annotator's label of one item (value null: skipped); baseRevision guards against a stale window. */
  'labels/put': (args: {
    queueId: string;
    pos: number;
    annotator: string;
    value: LabelValue;
    note?: string;
    msSpent: number;
    baseRevision?: number;
  }) => OwnLabel;
  /** Take back the annotator's latest label in the queue. */
  'labels/undo': (args: { queueId: string; annotator: string }) => { pos: number | null };
  'labels/export': (args: { queueId?: string; format: 'json' | 'csv' }) => { filename: string; content: string };
  /** Start a human episode; no scenario: Sparring draws one (and the hidden intent) from the seed. */
  'play/start': (args: { seat: PlaySeat; player: string; opponent: string; scenarioId?: string; seed?: number }) => PlayView;
  /** Take over a stored episode at turn `turn` (its turns before it replayed on the same seeded world). */
  'play/fork': (args: { episodeId: string; turn: number; seat: PlaySeat; player: string; opponent?: string }) => PlayView;
  /** The player's move; the opponent answers before this returns. An invalid move changes nothing. */
  'play/act': (args: { sessionId: string; action: HumanAction }) => PlayView;
  /** Reopen an unfinished session (e.g. after the window was closed). */
  'play/resume': (args: { sessionId: string }) => PlayView;
  'play/discard': (args: { sessionId: string }) => { ok: true };
  /** MADS L-1/L-2 of a DA on the robustness scenarios (core/arena/evaluate.ts), progress as `eval/progress`. */
  'eval/mads': (args: { da: string; ca: string; episodesPerScenario: number; seed: number }) => MadsEvaluation;
  /**
   * `sparring best-response` in the app: a match played by two builtin checkpoints, each episode's
   * opening replayed with every choice of the CA's action space (8,640); progress as `bestResponse/progress`.
   */
  'matches/bestResponse': (args: { matchId: string }) => BestResponseView;
  /** `sparring ca-policy --run R` in the app: one forward pass of each match's CA over its openings. */
  'runs/caPolicy': (args: { runId: string }) => CaPolicyView;
  /** `sparring study ca-policy S [ARM]` in the app: each arm's CA, first match → last, over the study's finished seeds. */
  'studies/caPolicy': (args: { studyId: string; arm?: string }) => StudyCaPolicyArm[];
  /**
   * Store a custom scenario in the lab (it joins the robustness set), or replace the custom one
   * `replaces`. Checked by the scenario schema and the taxonomy: problems come back by field and
   * nothing is written.
   */
  'scenarios/save': (args: { scenario: ScenarioDraft; replaces?: string }) => { ok: true; scenario: ScenarioInfo } | { ok: false; problems: FieldProblem[] };
  /** Delete a custom scenario (its stored episodes stay); shipped scenarios cannot be deleted. */
  'scenarios/remove': (args: { id: string }) => { ok: true };
  /** Start a study: every (arm, seed) an ordinary run of the lab, in worker processes (core/coevolution/arms.ts). */
  'studies/start': (args: {
    preset: string;
    /** A count (seeds 1..n), or seeds text as `sparring study --seeds` reads it ("1,4,7", "11-20"; core/coevolution/seeds.ts). */
    seeds: number | string;
    arms: string[];
    workers?: number;
    /** The study's own arms: a name and a run-config overlay (JSON text) merged over the preset, as `sparring study --arm NAME=FILE`. */
    customArms?: { name: string; overlay: string }[];
    /** Once every run has finished, play the arena-only estimate on this slice (as `studies/estimate`; `sparring study --estimate`). */
    estimate?: EstimateSlice;
    /** A study for choosing settings on the arena (StudyInfo.arenaOnly; `sparring study --arena-only`). */
    arenaOnly?: boolean;
  }) => { studyId: string };
  /**
   * Read seeds text as `studies/start` and `sparring study --seeds` do: the seeds it names and how
   * many runs a study here runs at once (its default workers), or a refusal in plain words.
   */
  'studies/seeds': (args: { text: string }) => { ok: true; seeds: number[]; workers: number } | { ok: false; problem: string };
  /** Continue an interrupted study: finished runs are kept, the others resume from their last phase boundary; `estimate` as in `studies/start`. */
  'studies/resume': (args: { studyId: string; estimate?: EstimateSlice }) => { ok: true };
  /**
   * The arena-only estimate of the held-out gain for every finished run of a study: its DA0 and
   * final DA against its final CA on the arena scenarios, the CA speaking the run's train slice or
   * its validation slice (core/coevolution/study-estimate.ts); plays only what is not stored.
   * Progress as `study/estimate`.
   */
  'studies/estimate': (args: { studyId: string; speak: EstimateSlice; scenarios?: EstimateScenarios }) => EstimateTables;
  /**
   * Bring another lab file's rows into this lab (`sparring lab merge FILE`): ids taken here are
   * renamed and every reference follows; merging the same lab again adds nothing; a lab of a newer
   * schema is refused; `dryRun` reports what would come in and changes nothing.
   */
  'labs/merge': (args: { file: string; dryRun?: boolean }) => LabMergeReport;
  /** EAU knobs (core/eau/knobs.ts): a checked write, queued for the run's next step or phase boundary; a refusal names its rule. */
  'knobs/set': (args: { runId: string; knob: string; value: number; reason: string; by?: string }) => KnobWriteResult;
  /** A write back to the value an applied write replaced, linked to it. */
  'knobs/revert': (args: { runId: string; writeId: number; reason?: string; by?: string }) => KnobWriteResult;
  /** Accept a proposal (with an edited value when given): a write through the same checks. */
  'knobs/accept': (args: { runId: string; proposalId: number; value?: number }) => KnobWriteResult;
  'knobs/dismiss': (args: { runId: string; proposalId: number }) => { ok: true };
  /** Save an OpenAI-compatible endpoint in the lab (its API key stays in the named environment variable). */
  'models/add': (args: ModelAddArgs) => ModelInfo;
  /** Save a local GGUF file by name (its SHA-256 taken now); usable as a DA or CA policy at once. */
  'models/add-gguf': (args: ModelAddGgufArgs) => ModelInfo;
  /** Remove a saved model and its cached answers (the call records of stored episodes stay). */
  'models/remove': (args: { name: string }) => { ok: true };
  /** One DA turn through the model: latency, tokens, tokens/s, whether the reply parses. */
  'models/test': (args: { name: string }) => ModelTestResult;
}

/** `eval/mads`'s answer: the report, the robustness scenarios played, the policy SPECs and the checkpoints they resolved to (null: scripted). */
export type MadsEvaluation = MadsReport & {
  scenarios: string[];
  da: string;
  ca: string;
  daCheckpoint: CheckpointRef | null;
  caCheckpoint: CheckpointRef | null;
  seed: number;
  episodesPerScenario: number;
};

export interface Queries {
  /**
   * The results tables of a run (table4, scenarios, matches, panel), a study (arms, paired, reach,
   * wda) or a tactic queue (table5, agreement, confusion), as core/export builds them for `sparring
   * export ID --table`. `arenaOnly`: a run's or study's without held-out or panel figures (default: as it was made).
   */
  'results/tables': (args: { id: string; arenaOnly?: boolean }) => DataTable[];
  /** One of those tables as the file `sparring export ID --table NAME --format F` writes, byte for byte. */
  'export/table': (args: { id: string; table: string; format: TableFormat; arenaOnly?: boolean }) => { filename: string; content: string };
  'engine/info': () => EngineInfo;
  'presets/list': () => PresetInfo[];
  'runs/list': () => RunSummary[];
  'runs/get': (args: { runId: string }) => RunDetail;
  'studies/list': () => StudyInfo[];
  /** `heldout`: an arena-only study's held-out and panel figures too (`study show S --heldout`); other studies always carry them. */
  'studies/get': (args: { studyId: string; heldout?: boolean }) => StudyDetail;
  /** The arms a study can compare, in the order they are shipped. */
  'studies/arms': () => ArmInfo[];
  'matches/list': (args: { runId?: string }) => MatchView[];
  'episodes/list': (args: EpisodeFilter) => { total: number; items: EpisodeSummary[] };
  'episodes/get': (args: { id: string }) => EpisodeView;
  'checkpoints/list': () => CheckpointInfo[];
  'metrics/series': (args: { runId: string; keys: string[] }) => Record<string, MetricPoint[]>;
  'labels/queues': () => LabelQueueInfo[];
  'labels/annotators': () => string[];
  /** An item as the annotator may see it (its source hidden until they label it); without pos, their next item; null when done. */
  'labels/item': (args: { queueId: string; annotator: string; pos?: number }) => LabelItemView | null;
  'labels/tactic-report': (args: { queueId: string }) => TacticReport;
  /** `judge`: a judge SPEC (`rule`, an LLM endpoint) that re-judges the labelled episodes; absent: the verdicts stored with them. */
  'labels/audit-report': (args: { queueId: string; judge?: string }) => AuditReport;
  'play/setup': () => PlaySetup;
  'play/sessions': () => PlaySessionSummary[];
  'play/episodes': () => HumanEpisodeInfo[];
  /** Replay a scenario and seed with two checkpoints of one role; where they first differ. */
  'episodes/diff': (args: DiffArgs) => EpisodeDiff;
  /** Every DA × CA pair plays the arena scenarios (cached per arguments); progress as `crossplay/progress`. */
  'evaluation/crossplay': (args: CrossPlayArgs) => CrossPlay;
  /** MADS's four validators (core/validators/validators.ts) on a stored episode, each with its offending turn. */
  'episodes/validate': (args: { id: string }) => ValidatorVerdict[];
  /** The domain's scenarios, read-only, with persona, task spec, complexity and adversities. */
  'scenarios/list': () => ScenarioInfo[];
  /** One scenario in full, as the editor starts from it (duplicate a shipped one, edit a custom one). */
  'scenarios/get': (args: { id: string }) => ScenarioDraft;
  /** The choices the scenario schema allows, for the scenario editor's fields. */
  'scenarios/vocabulary': () => ScenarioVocabulary;
  /** Every problem `scenarios/save` would report for this draft, storing nothing. */
  'scenarios/check': (args: { scenario: ScenarioDraft; replaces?: string }) => { problems: FieldProblem[] };
  /** The knob console of a run: knobs with current values and ranges, the audit log with measured effects, proposals. */
  'knobs/console': (args: { runId: string }) => KnobConsole;
  /** What past runs learnt about a knob: its applied writes across the lab, with from, to, context and effect. */
  'knobs/history': (args: { knob: string }) => KnobHistoryRow[];
  /** The models saved in the lab (endpoints; GGUF files once they can be added). */
  'models/list': () => ModelInfo[];
  /** The corpora imported into the lab (`sparring import-banking77`), each with the hash a run config names it by. */
  'corpora/list': () => CorpusInfo[];
  /** The models an endpoint's server offers (GET /v1/models). */
  'models/server-models': (args: { name: string }) => { models: string[] };
}

/**
 * An imported corpus of the lab: a run's DA0 may add its rows to SFT (run config
 * `bootstrap.sft.corpus`, its content `hash`).
 */
export interface CorpusInfo {
  id: number;
  source: string;
  file: string;
  importedAt: string;
  rows: number;
  /** 'sha256:' and the hex SHA-256 of its rows' intents and texts in file order. */
  hash: string;
}

/** What a scenario's fields may hold (core/domain/types.ts), served so the editor needs no core values. */
export interface ScenarioVocabulary {
  tools: string[];
  domainTools: string[];
  situations: string[];
  complexities: Complexity[];
  conversationalAdversities: string[];
  executionAdversities: string[];
  detailSlots: string[];
  fallbackBehaviors: string[];
  /** Every taxonomy intent and the tool it routes to (a scenario's intents must route to its expected tool). */
  intents: { intent: string; tool: string }[];
}

/** A scenario as the scenario browser shows it (core/domain/types.ts), its complexity resolved. */
export type ScenarioInfo = Pick<
  Scenario,
  'id' | 'title' | 'set' | 'description' | 'fraudReference' | 'expectedTool' | 'intents' | 'task' | 'persona' | 'adversities' | 'impossible'
> & {
  complexity: Complexity;
  referenceActions: number;
  /** Written in this lab (editable, deletable), not shipped. */
  custom: boolean;
};

export interface Events {
  'run/status': { runId: string; status: RunStatus; phase: RunPhase; pauseRequested: boolean };
  /** A run's note was written or cleared (null). */
  'run/note': { runId: string; note: string | null };
  'run/match': { runId: string; match: MatchSummary };
  'run/gym': { runId: string; gym: GymSummary };
  /** A gym handed to an external trainer: its job, with the commands to run, once recorded. */
  'run/trainer': { runId: string; job: GymJobInfo };
  'run/progress': { runId: string; progress: ProgressReport };
  /** Gym metrics, batched: several steps per event. */
  'run/metrics': { runId: string; points: { key: string; step: number; value: number; phase?: string }[] };
  /** Episodes finished since the last event (batched to a few per second). */
  'episodes/completed': { matchId: string; count: number; done: number; total: number };
  /** A turn of a human play session, as it is taken: the player's, then each of the opponent's. */
  'play/turn': { sessionId: string; turn: PlayTurn };
  /** A DA being trained so a Play session can start against `sft` (a few a second; once per lab). */
  'play/progress': { label: string; done: number; total: number };
  /** Progress of an `evaluation/crossplay` request (a few a second). */
  'crossplay/progress': { das: string[]; cas: string[]; done: number; total: number };
  /** Episodes played so far by the running `eval/mads` (a few a second at most). */
  'eval/progress': { done: number; total: number };
  /** Episodes of a match replayed so far by `matches/bestResponse`. */
  'bestResponse/progress': { matchId: string; done: number; total: number };
  /** A study's progress (a few a second) and its status when it changes. */
  'study/progress': { studyId: string; progress: StudyProgressInfo };
  'study/status': { studyId: string; status: StudyInfo['status'] };
  /** Runs of a study estimated so far by `studies/estimate`, and the match playing now (a few a second). */
  /** An estimate's progress; `error` once, when an estimate the study was started with failed (one asked for by request fails the request). */
  'study/estimate': { studyId: string; speak: EstimateSlice; scenarios?: EstimateScenarios; done: number; total: number; label: string | null; error?: string };
}

export type CommandName = keyof Commands;
export type QueryName = keyof Queries;
export type EventName = keyof Events;
export type RequestName = CommandName | QueryName;
type Fn = Commands & Queries;
export type ArgsOf<N extends RequestName> = Parameters<Fn[N]>[0];
export type ResultOf<N extends RequestName> = ReturnType<Fn[N]>;

/** What a host implements: every command and query, or the code does not compile. */
export type Handlers = { [N in RequestName]: (args: ArgsOf<N>) => Promise<ResultOf<N>> | ResultOf<N> };

/** Wire messages (WebSocket in web mode, MessagePort in Electron). */
export type ClientMessage = { kind: 'request'; id: number; name: RequestName; args: unknown };
export type ServerMessage =
  | { kind: 'response'; id: number; ok: true; result: unknown }
  | { kind: 'response'; id: number; ok: false; error: string }
  | { [N in EventName]: { kind: 'event'; name: N; payload: Events[N] } }[EventName];

/**
 * What the Electron preload exposes to the page as `window.sparring` (contextBridge): the engine
 * behind a MessagePort, as one request function and one event subscription.
 */
export interface PreloadBridge {
  send<N extends RequestName>(name: N, args: ArgsOf<N>): Promise<ResultOf<N>>;
  /** Returns the unsubscribe function. */
  onEvent(listener: (e: { [N in EventName]: { name: N; payload: Events[N] } }[EventName]) => void): () => void;
}
