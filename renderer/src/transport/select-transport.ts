/** Startup: the preload bridge when Electron provides one, otherwise the WebSocket of web mode. */
import type { PreloadBridge } from '../../../core/contract/contract';
import { createMessagePortTransport } from './messageport-transport';
import type { Transport } from './transport';
import { createWebSocketTransport, websocketUrl } from './websocket-transport';

export function selectTransport(w: Window & { sparring?: PreloadBridge }): Transport {
  if (w.sparring) return createMessagePortTransport(w.sparring);
  return createWebSocketTransport(websocketUrl(w.location));
}
