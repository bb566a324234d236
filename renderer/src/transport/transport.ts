/**
 * The renderer's one way to the engine. Two implementations, chosen at startup: a WebSocket (web
 * mode) and the Electron preload's MessagePort bridge. Screens never see which.
 */
import type { ArgsOf, RequestName, ResultOf } from '../../../core/contract/contract';
import type { EngineEvent } from '../../../core/contract/run-service';

export type ConnectionState = 'connecting' | 'open' | 'closed';

export interface Transport {
  readonly kind: 'websocket' | 'messageport';
  request<N extends RequestName>(name: N, args: ArgsOf<N>): Promise<ResultOf<N>>;
  /** Engine events; returns the unsubscribe function. */
  onEvent(listener: (e: EngineEvent) => void): () => void;
  /** Connection changes (with a reason when closed); returns the unsubscribe function. */
  onState(listener: (state: ConnectionState, detail: string | null) => void): () => void;
  close(): void;
}

/** A request the engine answered with an error (bad arguments, unknown run, …). */
export class EngineError extends Error {
  override name = 'EngineError';
  constructor(
    readonly request: RequestName,
    message: string,
  ) {
    super(message);
  }
}
