/**
 * The policy ports: one interface per role, whatever the backend (scripted, builtin neural, LLM,
 * human). The engine never knows which kind it holds. Methods may return a promise so that
 * batched or remote backends fit behind the same interface.
 */
import type { Rng } from '../random';
import type { CaObservation, DaObservation } from '../world/environment';

/**
 * Where a call comes from: the episode and the index of the turn it will produce. Backends that
 * keep per-call records (LLM endpoints) link each call to it; the others ignore it.
 */
export interface TurnContext {
  episodeId: string;
  turn: number;
}

export interface DaPolicy {
  /** A label for tables and the store, e.g. "scripted" or "DA2". */
  readonly name: string;
  /** The DA's next output in the wire format (a JSON string; it may be unparseable). */
  act(obs: DaObservation, rng: Rng, ctx?: TurnContext): string | Promise<string>;
}

export interface CaPolicy {
  readonly name: string;
  /** The customer's next utterance. */
  speak(obs: CaObservation, rng: Rng, ctx?: TurnContext): string | Promise<string>;
}
