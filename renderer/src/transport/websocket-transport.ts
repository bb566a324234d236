/**
 * Web mode: the engine over a WebSocket to the server that served this page, authenticated by
 * the launch token in the page URL (the server's cookie also works). Reconnects with backoff;
 * requests made while disconnected wait for the connection.
 */
import type { ArgsOf, RequestName, ResultOf, ServerMessage } from '../../../core/contract/contract';
import type { EngineEvent } from '../../../core/contract/run-service';
import { createRpc } from './rpc';
import type { ConnectionState, Transport } from './transport';

const BACKOFF_MS = [500, 1000, 2000, 5000];

export function websocketUrl(location: Pick<Location, 'protocol' | 'host' | 'search'>): string {
  const token = new URLSearchParams(location.search).get('token');
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}/ws${token ? `?token=${encodeURIComponent(token)}` : ''}`;
}

export function createWebSocketTransport(url: string): Transport {
  const eventListeners = new Set<(e: EngineEvent) => void>();
  const stateListeners = new Set<(s: ConnectionState, d: string | null) => void>();
  let ws: WebSocket | null = null;
  let state: ConnectionState = 'connecting';
  let attempt = 0;
  let closedByUs = false;
  let openWaiters: (() => void)[] = [];

  const setState = (s: ConnectionState, detail: string | null = null) => {
    state = s;
    for (const l of stateListeners) l(s, detail);
  };
  const rpc = createRpc(
    (m) => {
      if (!ws || ws.readyState !== WebSocket.OPEN) throw new Error('not connected to the engine');
      ws.send(JSON.stringify(m));
    },
    (e) => eventListeners.forEach((l) => l(e)),
  );

  function connect(): void {
    setState('connecting');
    const sock = new WebSocket(url);
    ws = sock;
    sock.onopen = () => {
      attempt = 0;
      setState('open');
      const waiters = openWaiters;
      openWaiters = [];
      waiters.forEach((w) => w());
    };
    sock.onmessage = (ev) => {
      let m: ServerMessage;
      try {
        m = JSON.parse(String(ev.data)) as ServerMessage;
      } catch {
        return;
      }
      rpc.receive(m);
    };
    sock.onclose = (ev) => {
      rpc.failAll('lost the connection to the engine');
      if (closedByUs) return setState('closed', 'closed');
      const reason = ev.code === 1006 ? 'the engine is not reachable (was `sparring serve` stopped, or is the token wrong?)' : `connection closed (${ev.code})`;
      setState('closed', reason);
      const wait = BACKOFF_MS[Math.min(attempt++, BACKOFF_MS.length - 1)]!;
      setTimeout(connect, wait);
    };
  }
  connect();

  const whenOpen = () => (state === 'open' && ws?.readyState === WebSocket.OPEN ? Promise.resolve() : new Promise<void>((r) => openWaiters.push(r)));

  return {
    kind: 'websocket',
    async request<N extends RequestName>(name: N, args: ArgsOf<N>): Promise<ResultOf<N>> {
      await whenOpen();
      return (await rpc.request(name, args)) as ResultOf<N>;
    },
    onEvent(l) {
      eventListeners.add(l);
      return () => eventListeners.delete(l);
    },
    onState(l) {
      stateListeners.add(l);
      l(state, null);
      return () => stateListeners.delete(l);
    },
    close() {
      closedByUs = true;
      ws?.close();
    },
  };
}
