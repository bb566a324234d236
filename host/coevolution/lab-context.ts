/**
 * What a run's actors work with: the run, its effective config and domain, the lab's stores, and
 * the hooks the run service gives them (progress, metrics, stop, EAU). The actors
 * (host/coevolution/actors.ts), the bootstrap reuse, the external and managed trainers and the
 * run service all take it.
 */
import type { SparringConfig } from '../../core/config';
import type { RunConfig } from '../../core/coevolution/run-config';
import type { ProgressReport } from '../../core/contract/contract';
import type { KnobProposal } from '../../core/eau/proposal';
import type { Domain } from '../../core/domain/types';
import type { Judge } from '../../core/judge/port';
import type { SessionSettings } from '../../models/session';
import type { CheckpointStore } from '../store/checkpoint-store';
import type { SqliteRunStore } from '../store/sqlite-store';

export interface LabContext {
  runId: string;
  seed: number;
  domain: Domain;
  config: RunConfig;
  sparring: SparringConfig;
  store: SqliteRunStore;
  checkpoints: CheckpointStore;
  session?: SessionSettings;
  progress: (p: ProgressReport) => void;
  /** A training metric point (registry key) of a phase such as 'gym:DA1'. */
  metric: (phase: string, key: string, step: number, value: number) => void;
  /** True once the user stopped the run: long work ends early (its result is discarded). */
  stopped: () => boolean;
  /** Runs of one scope share equal bootstraps (RunServiceOptions.bootstrapScope); absent: none shared. */
  bootstrapScope?: string;
  /**
   * Keeps what the EAU diagnostics propose after each match and gym (never applied by the run).
   * The service points it at host/eau/proposals-store.ts; absent: the proposals are dropped.
   */
  recordProposals?: (runId: string, proposals: readonly KnobProposal[]) => void;
  /**
   * EAU knobs: called at every GRPO step boundary of a gym (before step `step` of the gym that
   * trains checkpoint `gym`); the runner applies queued step-level writes there, updating
   * `config` (host/coevolution/knob-runtime.ts). `config`, `sparring` and `domain` are the run's
   * effective values, replaced at phase boundaries: read them when a phase starts.
   */
  atStep?: (gym: string, step: number) => void;
  /**
   * The run's judge (RunConfig `judge`): every episode of its bootstrap, matches, gyms' rollouts and
   * evaluations. Absent: the rule judge.
   */
  judge?: Judge;
}
