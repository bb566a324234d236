/**
 * The transcript browser: filters, the matching total, pages of episode summaries fetched as the
 * virtual list scrolls (never the whole lab), and the episode opened in the turn-by-turn view.
 */
import { create } from 'zustand';
import type { EpisodeFilter, EpisodeSummary, EpisodeView } from '../../../../core/contract/contract';
import { errorMessage, request } from '../../engine/client';
import type { LoadStatus } from '../runs/runs-store';

export const PAGE_SIZE = 100;

export type Filters = Omit<EpisodeFilter, 'offset' | 'limit'>;

export interface TranscriptsState {
  filters: Filters;
  /** Bumped on every filter change, so answers to older filters are dropped. */
  generation: number;
  total: number | null;
  status: LoadStatus;
  error: string | null;
  pages: Record<number, EpisodeSummary[]>;
  pagesLoading: Record<number, true>;
  selectedId: string | null;
  episode: EpisodeView | null;
  episodeStatus: LoadStatus;
  episodeError: string | null;
}

export const useTranscriptsStore = create<TranscriptsState>()(() => ({
  filters: {},
  generation: 0,
  total: null,
  status: 'idle',
  error: null,
  pages: {},
  pagesLoading: {},
  selectedId: null,
  episode: null,
  episodeStatus: 'idle',
  episodeError: null,
}));

export const selectFilters = (s: TranscriptsState) => s.filters;
export const selectTotal = (s: TranscriptsState) => s.total;
export const selectListStatus = (s: TranscriptsState) => s.status;
export const selectListError = (s: TranscriptsState) => s.error;
export const selectPages = (s: TranscriptsState) => s.pages;
export const selectSelectedId = (s: TranscriptsState) => s.selectedId;
export const selectEpisode = (s: TranscriptsState) => s.episode;
export const selectEpisodeStatus = (s: TranscriptsState) => s.episodeStatus;
export const selectEpisodeError = (s: TranscriptsState) => s.episodeError;

export function rowAt(pages: Record<number, EpisodeSummary[]>, i: number): EpisodeSummary | undefined {
  return pages[Math.floor(i / PAGE_SIZE)]?.[i % PAGE_SIZE];
}

function sameFilters(a: Filters, b: Filters): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof Filters>;
  for (const k of keys) if (a[k] !== b[k]) return false;
  return true;
}

/** Apply filters (no-op when unchanged unless `force`) and load the first page. */
export async function setFilters(filters: Filters, force = false): Promise<void> {
  const s = useTranscriptsStore.getState();
  if (!force && s.status !== 'idle' && s.status !== 'error' && sameFilters(s.filters, filters)) return;
  const generation = s.generation + 1;
  useTranscriptsStore.setState({ filters, generation, total: null, status: 'loading', error: null, pages: {}, pagesLoading: {} });
  await loadPage(0, generation);
}

export function reload(): Promise<void> {
  return setFilters(useTranscriptsStore.getState().filters, true);
}

async function loadPage(page: number, generation: number): Promise<void> {
  const s = useTranscriptsStore.getState();
  if (s.pages[page] || s.pagesLoading[page]) return;
  useTranscriptsStore.setState({ pagesLoading: { ...s.pagesLoading, [page]: true } });
  try {
    const r = await request('episodes/list', { ...s.filters, offset: page * PAGE_SIZE, limit: PAGE_SIZE });
    if (useTranscriptsStore.getState().generation !== generation) return;
    useTranscriptsStore.setState((cur) => ({
      total: r.total,
      status: 'ready',
      pages: { ...cur.pages, [page]: r.items },
      pagesLoading: withoutKey(cur.pagesLoading, page),
    }));
  } catch (err) {
    if (useTranscriptsStore.getState().generation !== generation) return;
    useTranscriptsStore.setState((cur) => ({ status: 'error', error: errorMessage(err), pagesLoading: withoutKey(cur.pagesLoading, page) }));
  }
}

/** Make sure rows [first, last] are loaded (called as the list scrolls). */
export function ensureRows(first: number, last: number): void {
  const { generation, total } = useTranscriptsStore.getState();
  if (total === null) return;
  const end = Math.min(last, total - 1);
  for (let p = Math.floor(Math.max(0, first) / PAGE_SIZE); p <= Math.floor(end / PAGE_SIZE); p++) void loadPage(p, generation);
}

export async function openEpisode(id: string | null): Promise<void> {
  if (id === null) return void useTranscriptsStore.setState({ selectedId: null, episode: null, episodeStatus: 'idle', episodeError: null });
  const s = useTranscriptsStore.getState();
  if (s.selectedId === id && (s.episodeStatus === 'ready' || s.episodeStatus === 'loading')) return;
  useTranscriptsStore.setState({ selectedId: id, episodeStatus: 'loading', episodeError: null });
  try {
    const episode = await request('episodes/get', { id });
    if (useTranscriptsStore.getState().selectedId === id) useTranscriptsStore.setState({ episode, episodeStatus: 'ready' });
  } catch (err) {
    if (useTranscriptsStore.getState().selectedId === id)
      useTranscriptsStore.setState({ episode: null, episodeStatus: 'error', episodeError: errorMessage(err) });
  }
}

function withoutKey<T>(r: Record<number, T>, key: number): Record<number, T> {
  const { [key]: _gone, ...rest } = r;
  return rest;
}
