/** Episode exports: the last file produced (name, size, lines) or why it failed. */
import { create } from 'zustand';
import { errorMessage, request } from '../../engine/client';
import { downloadBlob } from '../../charts/download';

export interface ExportState {
  busy: boolean;
  error: string | null;
  last: { filename: string; bytes: number; episodes: number } | null;
}

export const useExportStore = create<ExportState>()(() => ({ busy: false, error: null, last: null }));

export const selectExportBusy = (s: ExportState) => s.busy;
export const selectExportError = (s: ExportState) => s.error;
export const selectLastExport = (s: ExportState) => s.last;

export async function exportEpisodes(matchId: string | undefined, format: 'jsonl' | 'csv'): Promise<void> {
  useExportStore.setState({ busy: true, error: null });
  try {
    const { filename, content } = await request('export/episodes', { matchId, format });
    const blob = new Blob([content], { type: format === 'csv' ? 'text/csv' : 'application/jsonl' });
    downloadBlob(blob, filename);
    const lines = content ? content.split('\n').filter((l) => l.trim() !== '').length : 0;
    useExportStore.setState({ last: { filename, bytes: blob.size, episodes: format === 'csv' ? Math.max(0, lines - 1) : lines } });
  } catch (err) {
    useExportStore.setState({ error: errorMessage(err) });
  } finally {
    useExportStore.setState({ busy: false });
  }
}
