/**
 * Results that leave the lab: one table shape (named columns, plain-value rows) and its CSV and
 * JSON forms. The app's export buttons and `sparring export --table` both write tables through
 * these functions, so a table downloaded from a screen and the same table from the CLI are the
 * same bytes.
 */

export type CellValue = string | number | boolean | null;

export interface DataTable {
  /** File-name stem and the CLI's `--table` name, e.g. "table4", "arms". */
  name: string;
  /** One line saying what the rows are (the JSON form carries it; CSV has no place for it). */
  title: string;
  columns: string[];
  /** One array per row, in column order. */
  rows: CellValue[][];
}

/**
 * A float as a reader expects it: 12 significant digits, which removes binary round-off
 * (0.1 + 0.2 → 0.3, 0.29000000000000004 → 0.29) and keeps every digit a measured figure has.
 * Integers, NaN and ±Infinity pass unchanged (NaN and infinities become empty cells / null).
 */
export function roundFloat(x: number): number {
  if (!Number.isFinite(x) || Number.isInteger(x)) return x;
  return Number(x.toPrecision(12));
}

/** One CSV cell, RFC 4180 quoting; numbers rounded (roundFloat), null / NaN / ±Infinity empty. */
export function csvCell(v: CellValue | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(roundFloat(v)) : '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV record (no line ending). */
export function csvRow(cells: readonly (CellValue | undefined)[]): string {
  return cells.map(csvCell).join(',');
}

/** The table as CSV: a header row, then one row per record, CRLF line endings (RFC 4180). */
export function tableToCsv(t: DataTable): string {
  return [csvRow(t.columns), ...t.rows.map(csvRow)].map((l) => l + '\r\n').join('');
}

/** A JSON-safe cell: numbers rounded, NaN and ±Infinity null. */
function jsonCell(v: CellValue | undefined): CellValue {
  if (v === undefined) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? roundFloat(v) : null;
  return v;
}

/** The table as a JSON value: `{name, title, columns, rows: [{column: value}]}`. */
export function tableJsonValue(t: DataTable): { name: string; title: string; columns: string[]; rows: Record<string, CellValue>[] } {
  return {
    name: t.name,
    title: t.title,
    columns: t.columns,
    rows: t.rows.map((r) => Object.fromEntries(t.columns.map((c, i) => [c, jsonCell(r[i])]))),
  };
}

/** One table as JSON text (2-space indent, newline at the end). */
export function tableToJson(t: DataTable): string {
  return JSON.stringify(tableJsonValue(t), null, 2) + '\n';
}

/** Several tables as one JSON document: `{tables: [...]}`. */
export function tablesToJson(ts: readonly DataTable[]): string {
  return JSON.stringify({ tables: ts.map(tableJsonValue) }, null, 2) + '\n';
}

export type TableFormat = 'csv' | 'json';

/** The file a table is saved as: "<prefix>-<name>.<format>" (prefix: the run, study or queue), and its text. */
export function tableFile(t: DataTable, format: TableFormat, prefix: string): { filename: string; content: string; mime: string } {
  return {
    filename: `sparring-${prefix}-${t.name}.${format}`,
    content: format === 'csv' ? tableToCsv(t) : tableToJson(t),
    mime: format === 'csv' ? 'text/csv' : 'application/json',
  };
}
