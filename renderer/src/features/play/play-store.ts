/**
 * The Play screen's state: what the engine offers (scenarios, tool forms), the lab's unfinished
 * sessions and human-played episodes, and the session open in this window. The session itself
 * lives in the engine (and in the lab after every move); this store only mirrors its view.
 */
import { create } from 'zustand';
import type { ArgsOf, CheckpointInfo, HumanAction, HumanEpisodeInfo, PlaySessionSummary, PlaySetup, PlayView } from '../../../../core/contract/contract';
import type { EngineEvent } from '../../../../core/contract/run-service';
import { errorMessage, request } from '../../engine/client';
import type { LoadStatus } from '../runs/runs-store';

export interface PlayState {
  setup: PlaySetup | null;
  sessions: PlaySessionSummary[];
  episodes: HumanEpisodeInfo[];
  /** Checkpoints, for the opponent picker to say which saw human data. */
  checkpoints: CheckpointInfo[];
  listStatus: LoadStatus;
  listError: string | null;
  view: PlayView | null;
  /** A request for the open session (start, move, resume) is in flight. */
  busy: boolean;
  /** A DA being trained for the session being started (`sft`, once per lab), while it trains. */
  training: { label: string; done: number; total: number } | null;
  /** Why the last start, move or resume was refused; the session is unchanged. */
  error: string | null;
  player: string;
}

const PLAYER_KEY = 'sparring.player';
const storedPlayer = () => {
  try {
    return localStorage.getItem(PLAYER_KEY) ?? '';
  } catch {
    return '';
  }
};

export const usePlayStore = create<PlayState>()(() => ({
  setup: null,
  sessions: [],
  episodes: [],
  checkpoints: [],
  listStatus: 'idle',
  listError: null,
  view: null,
  busy: false,
  training: null,
  error: null,
  player: typeof localStorage === 'undefined' ? '' : storedPlayer(),
}));

export const selectSetup = (s: PlayState) => s.setup;
export const selectSessions = (s: PlayState) => s.sessions;
export const selectEpisodes = (s: PlayState) => s.episodes;
export const selectCheckpoints = (s: PlayState) => s.checkpoints;
export const selectListStatus = (s: PlayState) => s.listStatus;
export const selectListError = (s: PlayState) => s.listError;
export const selectView = (s: PlayState) => s.view;
export const selectBusy = (s: PlayState) => s.busy;
export const selectTraining = (s: PlayState) => s.training;
export const selectError = (s: PlayState) => s.error;
export const selectPlayer = (s: PlayState) => s.player;

export function setPlayer(player: string): void {
  usePlayStore.setState({ player });
  try {
    localStorage.setItem(PLAYER_KEY, player);
  } catch {
    // Private mode: the name is simply not remembered.
  }
}

export async function loadPlayLists(): Promise<void> {
  usePlayStore.setState((s) => ({ listStatus: s.setup ? s.listStatus : 'loading', listError: null }));
  try {
    const [setup, sessions, episodes, checkpoints] = await Promise.all([
      request('play/setup', undefined),
      request('play/sessions', undefined),
      request('play/episodes', undefined),
      request('checkpoints/list', undefined),
    ]);
    usePlayStore.setState({ setup, sessions, episodes, checkpoints, listStatus: 'ready' });
  } catch (err) {
    usePlayStore.setState({ listStatus: 'error', listError: errorMessage(err) });
  }
}

/** Run a session request; a refusal leaves the view as it was and shows why. */
async function session(run: () => Promise<PlayView>): Promise<PlayView | null> {
  usePlayStore.setState({ busy: true, error: null });
  try {
    const view = await run();
    usePlayStore.setState({ view });
    if (view.status === 'finished') void loadPlayLists();
    return view;
  } catch (err) {
    usePlayStore.setState({ error: errorMessage(err) });
    return null;
  } finally {
    usePlayStore.setState({ busy: false, training: null });
  }
}

export const startPlay = (args: ArgsOf<'play/start'>) => session(() => request('play/start', args));
export const forkEpisode = (args: ArgsOf<'play/fork'>) => session(() => request('play/fork', args));
export const resumePlay = (sessionId: string) => session(() => request('play/resume', { sessionId }));

/** The player's move; true when the engine took it. */
export async function act(action: HumanAction): Promise<boolean> {
  const v = usePlayStore.getState().view;
  if (!v) return false;
  return (await session(() => request('play/act', { sessionId: v.sessionId, action }))) !== null;
}

export async function discardPlay(sessionId: string): Promise<void> {
  try {
    await request('play/discard', { sessionId });
    if (usePlayStore.getState().view?.sessionId === sessionId) usePlayStore.setState({ view: null });
  } catch (err) {
    usePlayStore.setState({ error: errorMessage(err) });
  }
  await loadPlayLists();
}

/** Close the session in this window (an unfinished one stays in the lab's list). */
export function leavePlay(): void {
  usePlayStore.setState({ view: null, error: null });
  void loadPlayLists();
}

/** Apply an engine event (called by the mirror only): turns of the open session show as they are taken. */
export function applyPlayEvent(e: EngineEvent): void {
  if (e.name === 'play/progress') {
    if (usePlayStore.getState().busy) usePlayStore.setState({ training: e.payload });
    return;
  }
  if (e.name !== 'play/turn') return;
  const v = usePlayStore.getState().view;
  if (v?.sessionId === e.payload.sessionId && e.payload.turn.index === v.turns.length)
    usePlayStore.setState({ view: { ...v, turns: [...v.turns, e.payload.turn] } });
}

export function clearPlayError(): void {
  usePlayStore.setState({ error: null });
}
