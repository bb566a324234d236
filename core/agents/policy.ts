/**
 * The policy ports: one interface per role, whatever the backend (scripted, builtin neural, LLM,
 * human). The engine never knows which kind it holds. Methods may return a promise so that
 * batched or remote backends fit behind the same interface.
 */
import type { Rng } from '../random';
import type { CaObservation, DaObservation } from '../world/environment';

/**
 * The stored checkpoint a policy runs: what a SPEC such as `latest` or `sft` resolved to when the
 * policy was loaded. Recorded beside the spec with every match, so the record still says what
 * played once newer checkpoints exist.
 */
export interface CheckpointRef {
  /** What a SPEC names, e.g. "DA2" or "DA-sft-1". */
  name: string;
  /** The checkpoint's id in the lab (host/store/checkpoint-store.ts). */
  id: string;
}

export interface DaPolicy {
  /** A label for tables and the store: the SPEC it was loaded from, e.g. "scripted", "latest" or "DA2". */
  readonly name: string;
  /** The stored checkpoint behind it; absent for policies that are not checkpoints (scripted, a person). */
  readonly checkpoint?: CheckpointRef;
  /** The DA's next output in the wire format (a JSON string; it may be unparseable). */
  act(obs: DaObservation, rng: Rng): string | Promise<string>;
}

export interface CaPolicy {
  readonly name: string;
  readonly checkpoint?: CheckpointRef;
  /** The customer's next utterance. */
  speak(obs: CaObservation, rng: Rng): string | Promise<string>;
}
