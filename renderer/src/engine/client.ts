/** The transport chosen at startup, for feature actions to call the engine through. */
import type { ArgsOf, RequestName, ResultOf } from '../../../core/contract/contract';
import type { Transport } from '../transport/transport';

let current: Transport | null = null;

export function setTransport(t: Transport): void {
  current = t;
}

export function request<N extends RequestName>(name: N, args: ArgsOf<N>): Promise<ResultOf<N>> {
  if (!current) return Promise.reject(new Error('the engine connection is not set up yet'));
  return current.request(name, args);
}

/** An error as one line for an error state. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
