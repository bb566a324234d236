/**
 * CSV and JSON buttons by a results table: the engine writes the file as `sparring export ID
 * --table NAME --format F` does (core/export: the same rows, the same bytes), saved as
 * sparring-ID-NAME.csv / .json.
 */
import { useState } from 'react';
import type { TableFormat } from '../../../core/contract/contract';
import { downloadBlob } from '../charts/download';
import { errorMessage, request } from '../engine/client';

/** `id`: the run, study or tactic queue; `name`: its table (table4, arms, table5, …); `arenaOnly`: without held-out figures. */
export function TableExport({ id, name, label, arenaOnly }: { id: string; name: string; label?: string; arenaOnly?: boolean }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const save = async (format: TableFormat) => {
    setBusy(true);
    setError(null);
    try {
      const { filename, content } = await request('export/table', { id, table: name, format, ...(arenaOnly !== undefined ? { arenaOnly } : {}) });
      downloadBlob(new Blob([content], { type: format === 'csv' ? 'text/csv' : 'application/json' }), filename);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  const what = label ?? 'this table';
  return (
    <span className="table-export" role="group" aria-label={`Export ${what}`}>
      {(['csv', 'json'] as const).map((format) => (
        <button
          key={format}
          type="button"
          className="btn tiny"
          disabled={busy}
          title={`Download ${what} as ${format.toUpperCase()} (as sparring export ${id} --table ${name} --format ${format})`}
          onClick={() => void save(format)}
          data-testid={`export-${name}-${format}`}
        >
          {format.toUpperCase()}
        </button>
      ))}
      {error && (
        <span className="bad-text small" role="alert">
          {' '}
          Export failed: {error}
        </span>
      )}
    </span>
  );
}
