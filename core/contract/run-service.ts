/**
 * What the engine needs from the co-evolution runner (implemented in host/coevolution/): start,
 * steer and observe runs. The engine's contract handlers for `runs/*` delegate here, and events
 * the runner emits are forwarded to clients.
 */
import type { Events, EventName, MetricPoint, PresetInfo, RunDetail, RunSummary } from './contract';

export type EngineEvent = { [N in EventName]: { name: N; payload: Events[N] } }[EventName];

export interface RunService {
  presets(): PresetInfo[];
  /** Validate the config (errors name the field), create the run and start it in the background. */
  /** `inherit`: a run whose kept knob writes (EAU's experience pool) the new run starts from, recorded as inherited writes. */
  /** `arenaOnly`: a run for choosing settings on the arena (RunSummary.arenaOnly). */
  start(args: { preset: string; configJson?: string; seed?: number; inherit?: string; arenaOnly?: boolean }): Promise<{ runId: string }>;
  pause(runId: string): void;
  resume(runId: string): Promise<void>;
  stop(runId: string): void;
  list(): RunSummary[];
  get(runId: string): RunDetail;
  /** Gym metric series of a run, by registry key. */
  metrics(runId: string, keys: readonly string[]): Record<string, MetricPoint[]>;
  /** Subscribe to run events; returns the unsubscribe function. */
  subscribe(listener: (e: EngineEvent) => void): () => void;
}
