/**
 * One client connection to the engine, whatever carries it (a WebSocket in web mode, a
 * MessagePort in Electron): parses wire messages, dispatches requests to the handlers and sends
 * back responses and events. Transport-free, so tests and both hosts share it.
 */
import type { ClientMessage, RequestName, ServerMessage } from '../../core/contract/contract';
import type { EngineEvent } from '../../core/contract/run-service';
import type { Engine } from './engine';

export interface Session {
  /** Handle one decoded message from the client; resolves once its response is sent. */
  receive(message: unknown): Promise<void>;
  /** Stop sending events to this client. */
  close(): void;
}

export function createSession(engine: Pick<Engine, 'handlers' | 'subscribe'>, send: (m: ServerMessage) => void): Session {
  let open = true;
  const safeSend = (m: ServerMessage) => {
    if (!open) return;
    try {
      send(m);
    } catch {
      // The connection went away mid-send; its close handler ends the session.
    }
  };
  const unsubscribe = engine.subscribe((e: EngineEvent) => safeSend({ kind: 'event', name: e.name, payload: e.payload } as ServerMessage));

  return {
    async receive(message) {
      const parsed = parseClientMessage(message, engine.handlers);
      if ('error' in parsed) {
        safeSend({ kind: 'response', id: parsed.id, ok: false, error: parsed.error });
        return;
      }
      const { id, name, args } = parsed;
      try {
        const handler = engine.handlers[name] as (a: unknown) => unknown;
        const result = await handler(args);
        safeSend({ kind: 'response', id, ok: true, result });
      } catch (err) {
        safeSend({ kind: 'response', id, ok: false, error: err instanceof Error ? err.message : String(err) });
      }
    },
    close() {
      open = false;
      unsubscribe();
    },
  };
}

/** Check a message's envelope; a bad one gets an error response (id −1 when it has no usable id). */
export function parseClientMessage(m: unknown, handlers: object): ClientMessage | { id: number; error: string } {
  if (typeof m !== 'object' || m === null) return { id: -1, error: 'message: expected an object {kind, id, name, args}' };
  const { kind, id, name, args } = m as Record<string, unknown>;
  const rid = typeof id === 'number' && Number.isSafeInteger(id) ? id : -1;
  if (rid === -1) return { id: -1, error: 'message: field "id" must be an integer' };
  if (kind !== 'request') return { id: rid, error: `message: field "kind" must be "request", got ${JSON.stringify(kind)}` };
  if (typeof name !== 'string' || !Object.hasOwn(handlers, name)) return { id: rid, error: `message: unknown request ${JSON.stringify(name)}` };
  return { kind: 'request', id: rid, name: name as RequestName, args };
}
