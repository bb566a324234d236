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
 * request (`labels/create-queue: no match "M9"` reads "no match "M9"") and without the exact field
 * paths the engine adds for scripts after each sentence that already names the field in words
 * (`Custom arm 1 › name must not be empty (field "customArms.0.name")`; core/issue-text.ts).
 */
export function errorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/^[a-z]+\/[a-z-]+: /, '').replace(/ \(field "[^"]*"\)(; |$)/g, (_m, sep: string) => (sep ? '. ' : '.'));
}
