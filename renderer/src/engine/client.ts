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

/**
 * An error as one line for an error state, without the engine's internal prefix naming the
 * request (`labels/create-queue: no match "M9"` reads "no match "M9"").
 */
export function errorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/^[a-z]+\/[a-z-]+: /, '');
}
