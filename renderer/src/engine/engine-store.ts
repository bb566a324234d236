/** The connection to the engine and what the engine says about itself (`engine/info`). */
import { create } from 'zustand';
import type { EngineInfo } from '../../../core/contract/contract';
import type { ConnectionState } from '../transport/transport';
import { errorMessage, request } from './client';

export interface EngineState {
  connection: ConnectionState;
  /** Why the connection is closed, when it is. */
  connectionDetail: string | null;
  transportKind: 'websocket' | 'messageport' | null;
  info: EngineInfo | null;
  infoError: string | null;
}

export const useEngineStore = create<EngineState>()(() => ({
  connection: 'connecting',
  connectionDetail: null,
  transportKind: null,
  info: null,
  infoError: null,
}));

export const selectConnection = (s: EngineState) => s.connection;
export const selectConnectionDetail = (s: EngineState) => s.connectionDetail;
export const selectInfo = (s: EngineState) => s.info;
export const selectInfoError = (s: EngineState) => s.infoError;
export const selectRunsUnavailable = (s: EngineState) => s.info?.runsUnavailable ?? null;

export async function loadEngineInfo(): Promise<void> {
  try {
    const info = await request('engine/info', undefined);
    useEngineStore.setState({ info, infoError: null });
  } catch (err) {
    useEngineStore.setState({ infoError: errorMessage(err) });
  }
}
