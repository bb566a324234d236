/**
 * Request/response matching over a message channel: numbered requests, responses settle the
 * matching promise, events go to listeners. Shared by the WebSocket transport and tests.
 */
import type { ClientMessage, RequestName, ServerMessage } from '../../../core/contract/contract';
import type { EngineEvent } from '../../../core/contract/run-service';
import { EngineError } from './transport';

interface Pending {
  name: RequestName;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

export interface Rpc {
  request(name: RequestName, args: unknown): Promise<unknown>;
  /** Feed one message from the engine. */
  receive(m: ServerMessage): void;
  /** Reject every request still waiting (the connection went away). */
  failAll(reason: string): void;
  readonly pending: number;
}

export function createRpc(post: (m: ClientMessage) => void, onEvent: (e: EngineEvent) => void): Rpc {
  let nextId = 1;
  const waiting = new Map<number, Pending>();
  return {
    request(name, args) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { name, resolve, reject });
        try {
          post({ kind: 'request', id, name, args });
        } catch (err) {
          waiting.delete(id);
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
    },
    receive(m) {
      if (m.kind === 'event') return onEvent({ name: m.name, payload: m.payload } as EngineEvent);
      const p = waiting.get(m.id);
      if (!p) return;
      waiting.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(new EngineError(p.name, m.error));
    },
    failAll(reason) {
      for (const [id, p] of waiting) {
        waiting.delete(id);
        p.reject(new EngineError(p.name, reason));
      }
    },
    get pending() {
      return waiting.size;
    },
  };
}
