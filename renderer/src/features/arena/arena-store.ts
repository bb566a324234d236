/** Arena matches in the lab, and the match being played from this window (with live progress). */
import { create } from 'zustand';
import type { ArgsOf, MatchView } from '../../../../core/contract/contract';
import type { EngineEvent } from '../../../../core/contract/run-service';
import { errorMessage, request } from '../../engine/client';
import type { LoadStatus } from '../runs/runs-store';

export interface MatchProgress {
  matchId: string;
  done: number;
  total: number;
  /** ms timestamps, for the rate and ETA. */
  startedAt: number;
  updatedAt: number;
}

export interface ArenaState {
  matches: MatchView[];
  status: LoadStatus;
  error: string | null;
  playing: boolean;
  playError: string | null;
  /** The latest episodes/completed report of a match in progress (any client's). */
  progress: MatchProgress | null;
  lastPlayed: string | null;
  selectedMatchId: string | null;
}

export const useArenaStore = create<ArenaState>()(() => ({
  matches: [],
  status: 'idle',
  error: null,
  playing: false,
  playError: null,
  progress: null,
  lastPlayed: null,
  selectedMatchId: null,
}));

export const selectMatches = (s: ArenaState) => s.matches;
export const selectMatchCount = (s: ArenaState) => s.matches.length;
export const selectMatchesStatus = (s: ArenaState) => s.status;
export const selectMatchesError = (s: ArenaState) => s.error;
export const selectPlaying = (s: ArenaState) => s.playing;
export const selectPlayError = (s: ArenaState) => s.playError;
export const selectProgress = (s: ArenaState) => s.progress;
export const selectSelectedMatchId = (s: ArenaState) => s.selectedMatchId ?? s.matches.at(-1)?.id ?? null;
export const selectSelectedMatch = (s: ArenaState) => {
  const id = selectSelectedMatchId(s);
  return s.matches.find((m) => m.id === id) ?? null;
};

export async function loadMatches(): Promise<void> {
  useArenaStore.setState((s) => ({ status: s.matches.length ? s.status : 'loading', error: null }));
  try {
    const matches = await request('matches/list', {});
    useArenaStore.setState({ matches, status: 'ready' });
  } catch (err) {
    useArenaStore.setState({ status: 'error', error: errorMessage(err) });
  }
}

export function selectMatch(id: string): void {
  useArenaStore.setState({ selectedMatchId: id });
}

export async function playMatch(args: ArgsOf<'matches/play'>): Promise<string | null> {
  useArenaStore.setState({ playing: true, playError: null, progress: null });
  try {
    const { matchId } = await request('matches/play', args);
    useArenaStore.setState({ lastPlayed: matchId, selectedMatchId: matchId });
    await loadMatches();
    return matchId;
  } catch (err) {
    useArenaStore.setState({ playError: errorMessage(err) });
    return null;
  } finally {
    useArenaStore.setState({ playing: false });
  }
}

/** Apply an engine event (called by the mirror only). */
export function applyArenaEvent(e: EngineEvent, now = Date.now()): void {
  if (e.name !== 'episodes/completed') return;
  const { matchId, done, total } = e.payload;
  const prev = useArenaStore.getState().progress;
  const startedAt = prev && prev.matchId === matchId ? prev.startedAt : now - 1;
  useArenaStore.setState({ progress: { matchId, done, total, startedAt, updatedAt: now } });
}
