/**
 * The preload (sandboxed, context-isolated): main hands it a MessagePort to the engine, and it
 * exposes two typed functions to the page as `window.sparring` — `send(name, args)` and
 * `onEvent(listener)`. ipcRenderer itself never reaches the page.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { ClientMessage, PreloadBridge, ServerMessage } from '../core/contract/contract';
import type { EngineEvent } from '../core/contract/run-service';

let port: MessagePort | null = null;
let nextId = 1;
const queued: ClientMessage[] = [];
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
const listeners = new Set<(e: EngineEvent) => void>();

function receive(m: ServerMessage): void {
  if (m.kind === 'event') {
    const e = { name: m.name, payload: m.payload } as EngineEvent;
    for (const l of listeners) l(e);
    return;
  }
  const p = pending.get(m.id);
  if (!p) return;
  pending.delete(m.id);
  if (m.ok) p.resolve(m.result);
  else p.reject(new Error(m.error));
}

ipcRenderer.on('engine-port', (event) => {
  const next = event.ports[0];
  if (!next) return;
  port?.close();
  port = next;
  port.onmessage = (ev: MessageEvent<ServerMessage>) => receive(ev.data);
  port.start();
  for (const m of queued.splice(0)) port.postMessage(m);
});

ipcRenderer.on('engine-lost', (_event, reason: string) => {
  port?.close();
  port = null;
  for (const [id, p] of pending) {
    pending.delete(id);
    p.reject(new Error(`the engine stopped: ${reason}`));
  }
});

const bridge: PreloadBridge = {
  send(name, args) {
    const id = nextId++;
    const msg: ClientMessage = { kind: 'request', id, name: name, args };
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      if (port) port.postMessage(msg);
      else queued.push(msg); // the port arrives once the page has loaded
    });
  },
  onEvent(listener) {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  },
};

contextBridge.exposeInMainWorld('sparring', bridge);
