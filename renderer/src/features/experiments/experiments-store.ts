/** Presets, the config being edited, and starting a run from them. */
import { create } from 'zustand';
import type { CorpusInfo, PresetInfo } from '../../../../core/contract/contract';
import { errorMessage, request } from '../../engine/client';
import { prettyJson } from '../../format';
import type { LoadStatus } from '../runs/runs-store';
import { loadRuns } from '../runs/runs-store';
import { defaultPreset } from './preset-time';

export interface ExperimentsState {
  presets: PresetInfo[];
  status: LoadStatus;
  error: string | null;
  preset: string | null;
  configText: string;
  seed: number;
  /** Start the run as one for choosing settings on the arena (RunSummary.arenaOnly). */
  arenaOnly: boolean;
  /** The lab's imported corpora, which DA0's SFT may add (the corpus picker). */
  corpora: CorpusInfo[];
  starting: boolean;
  /** The engine's answer to the last start (validation errors name the field). */
  startError: string | null;
}

export const useExperimentsStore = create<ExperimentsState>()(() => ({
  presets: [],
  status: 'idle',
  error: null,
  preset: null,
  configText: '',
  seed: 1,
  arenaOnly: false,
  corpora: [],
  starting: false,
  startError: null,
}));

export const selectPresets = (s: ExperimentsState) => s.presets;
export const selectPresetsStatus = (s: ExperimentsState) => s.status;
export const selectPresetsError = (s: ExperimentsState) => s.error;
export const selectPreset = (s: ExperimentsState) => s.preset;
export const selectConfigText = (s: ExperimentsState) => s.configText;
export const selectSeed = (s: ExperimentsState) => s.seed;
export const selectArenaOnly = (s: ExperimentsState) => s.arenaOnly;
export const selectCorpora = (s: ExperimentsState) => s.corpora;
export const selectStarting = (s: ExperimentsState) => s.starting;
export const selectStartError = (s: ExperimentsState) => s.startError;

export async function loadPresets(): Promise<void> {
  useExperimentsStore.setState((s) => ({ status: s.presets.length ? s.status : 'loading', error: null }));
  try {
    const presets = await request('presets/list', undefined);
    const cur = useExperimentsStore.getState();
    const keep = presets.find((p) => p.name === cur.preset);
    const first = keep ?? defaultPreset(presets);
    useExperimentsStore.setState({
      presets,
      status: 'ready',
      preset: first?.name ?? null,
      configText: keep ? cur.configText : first ? prettyJson(first.configJson) : '',
    });
  } catch (err) {
    useExperimentsStore.setState({ status: 'error', error: errorMessage(err) });
  }
}

/** The lab's imported corpora; on failure the picker offers the bank alone (a start still names a bad hash). */
export async function loadCorpora(): Promise<void> {
  try {
    useExperimentsStore.setState({ corpora: await request('corpora/list', undefined) });
  } catch {
    useExperimentsStore.setState({ corpora: [] });
  }
}

export function choosePreset(name: string): void {
  const p = useExperimentsStore.getState().presets.find((x) => x.name === name);
  if (p) useExperimentsStore.setState({ preset: p.name, configText: prettyJson(p.configJson), startError: null });
}

export function editConfig(text: string): void {
  useExperimentsStore.setState({ configText: text, startError: null });
}

export function setSeed(seed: number): void {
  useExperimentsStore.setState({ seed });
}

export function setArenaOnly(arenaOnly: boolean): void {
  useExperimentsStore.setState({ arenaOnly });
}

export function resetConfig(): void {
  const { preset } = useExperimentsStore.getState();
  if (preset) choosePreset(preset);
}

/** Start a run; returns its id, or null with `startError` set. */
export async function startRun(): Promise<string | null> {
  const { preset, configText, seed, arenaOnly } = useExperimentsStore.getState();
  if (!preset) return null;
  useExperimentsStore.setState({ starting: true, startError: null });
  try {
    const { runId } = await request('runs/start', { preset, configJson: configText, seed, ...(arenaOnly ? { arenaOnly } : {}) });
    void loadRuns();
    return runId;
  } catch (err) {
    useExperimentsStore.setState({ startError: errorMessage(err) });
    return null;
  } finally {
    useExperimentsStore.setState({ starting: false });
  }
}
