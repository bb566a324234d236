/**
 * Electron: the engine runs in a utility process and main hands the preload a MessagePort to
 * it; the preload exposes that port as `window.sparring` (send / onEvent) through contextBridge.
 */
import type { ArgsOf, PreloadBridge, RequestName, ResultOf } from '../../../core/contract/contract';
import { EngineError } from './transport';
import type { Transport } from './transport';

export function createMessagePortTransport(bridge: PreloadBridge): Transport {
  return {
    kind: 'messageport',
    async request<N extends RequestName>(name: N, args: ArgsOf<N>): Promise<ResultOf<N>> {
      try {
        return await bridge.send(name, args);
      } catch (err) {
        // contextBridge copies errors as plain Errors; keep the request name for the UI.
        throw new EngineError(name, err instanceof Error ? err.message.replace(/^Error invoking remote method '[^']*': (Error: )?/, '') : String(err));
      }
    },
    onEvent: (l) => bridge.onEvent(l),
    onState(l) {
      // The port lives as long as the window; main reloads the page if the engine restarts.
      l('open', null);
      return () => {};
    },
    close() {},
  };
}
