/**
 * A run's held-out evaluation as tables across DA checkpoints. The engine passes the evaluation
 * through as plain data of whatever shape the runner wrote, so this finds the tables in it: an
 * array of rows (named by `da`, `checkpoint`, `name`, …) or an object of rows keyed by
 * checkpoint, at the top or one level down. Scalars become columns (nested objects flatten to
 * `gate.daWinRate`, labelled by their last segment where that is unambiguous); arrays of records
 * inside the rows (per-scenario results) become a second table, one row per item and one column
 * per checkpoint and measure. Whatever fits no table is returned as `rest` and shown as JSON.
 */

export type Cell = string | number | boolean | null;

export interface Column {
  key: string;
  label: string;
}

export interface EvaluationTable {
  title: string;
  /** Header of the first column (what names a row). */
  rowKey: string;
  columns: Column[];
  rows: { key: string; cells: Record<string, Cell> }[];
  /** Columns with one value in every row, shown once above the table instead. */
  common: (Column & { value: Cell })[];
}

export interface EvaluationView {
  tables: EvaluationTable[];
  /** Scalars and anything else outside the tables. */
  rest: Record<string, unknown>;
}

const NAME_KEYS = ['checkpoint', 'da', 'name', 'policy', 'id', 'scenarioId', 'scenario'];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const isRecordArray = (v: unknown): v is Record<string, unknown>[] => Array.isArray(v) && v.length > 0 && v.every(isRecord);

interface Flat {
  cells: Record<string, Cell>;
  /** Arrays of records found inside, by path. */
  nested: Record<string, Record<string, unknown>[]>;
}

function flatten(o: Record<string, unknown>, prefix = '', out: Flat = { cells: {}, nested: {} }): Flat {
  for (const [k, v] of Object.entries(o)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isRecord(v)) flatten(v, key, out);
    else if (isRecordArray(v)) out.nested[key] = v;
    else if (Array.isArray(v)) out.cells[key] = v.every((x) => ['string', 'number', 'boolean'].includes(typeof x)) ? v.join(', ') : JSON.stringify(v);
    else if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out.cells[key] = v as Cell;
    else out.cells[key] = JSON.stringify(v);
  }
  return out;
}

/** Label columns by their last path segment, or more where two would read the same. */
function label(keys: string[]): Column[] {
  const last = (k: string) => k.split('.').at(-1)!;
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(last(k), (counts.get(last(k)) ?? 0) + 1);
  return keys.map((k) => ({ key: k, label: counts.get(last(k))! > 1 ? k : last(k) }));
}

function nameKey(rows: Record<string, unknown>[]): string | null {
  return NAME_KEYS.find((k) => rows.every((r) => typeof r[k] === 'string')) ?? null;
}

function tablesOf(title: string, value: unknown): EvaluationTable[] | null {
  let entries: [string, Record<string, unknown>][];
  let rowKey: string;
  if (isRecordArray(value)) {
    const nk = nameKey(value);
    rowKey = nk ?? 'row';
    entries = value.map((r, i) => {
      if (!nk) return [`#${i + 1}`, r];
      const { [nk]: name, ...rest } = r;
      return [String(name), rest];
    });
  } else if (isRecord(value)) {
    const vals = Object.entries(value);
    if (vals.length === 0 || !vals.every(([, v]) => isRecord(v))) return null;
    rowKey = 'checkpoint';
    entries = vals as [string, Record<string, unknown>][];
  } else {
    return null;
  }
  const flats = entries.map(([key, r]) => ({ key, flat: flatten(r) }));
  const keys = [...new Set(flats.flatMap((f) => Object.keys(f.flat.cells)))];
  const main = hoistCommon({ title, rowKey, columns: label(keys), rows: flats.map((f) => ({ key: f.key, cells: f.flat.cells })), common: [] });
  const out = [main];
  // Arrays of records inside rows: pivot to item × (row · measure). Each table is named by its
  // path's last segment, or by the whole path where two would read the same.
  const paths = [...new Set(flats.flatMap((f) => Object.keys(f.flat.nested)))];
  const names = new Map(label(paths).map((c) => [c.key, c.label]));
  for (const path of paths) {
    const itemKey = nameKey(flats.flatMap((f) => f.flat.nested[path] ?? [])) ?? null;
    const rows = new Map<string, Record<string, Cell>>();
    const measures: string[] = [];
    for (const f of flats) {
      (f.flat.nested[path] ?? []).forEach((item, i) => {
        const name = itemKey ? String(item[itemKey]) : `#${i + 1}`;
        const cells = rows.get(name) ?? {};
        for (const [k, v] of Object.entries(flatten(item).cells)) {
          if (k === itemKey) continue;
          if (!measures.includes(k)) measures.push(k);
          cells[`${k} · ${f.key}`] = v;
        }
        rows.set(name, cells);
      });
    }
    // Grouped by measure, then checkpoint: routingAccuracy · DA0, routingAccuracy · DA1, …
    const columns = measures.flatMap((m) => flats.map((f) => ({ key: `${m} · ${f.key}`, label: `${m} · ${f.key}` })));
    out.push(
      hoistCommon({
        title: `${title} · ${names.get(path)}`,
        rowKey: itemKey ?? 'item',
        columns,
        rows: [...rows].map(([key, cells]) => ({ key, cells })),
        common: [],
      }),
    );
  }
  return out;
}

/** Move columns that hold one value in every row (of two or more) out of the table. */
function hoistCommon(t: EvaluationTable): EvaluationTable {
  if (t.rows.length < 2) return t;
  const same = (c: Column) => t.rows.every((r) => r.cells[c.key] !== undefined && r.cells[c.key] === t.rows[0]!.cells[c.key]);
  return {
    ...t,
    columns: t.columns.filter((c) => !same(c)),
    common: t.columns.filter(same).map((c) => ({ ...c, value: t.rows[0]!.cells[c.key]! })),
  };
}

export function evaluationView(evaluation: unknown): EvaluationView | null {
  if (evaluation === null || evaluation === undefined) return null;
  const direct = tablesOf('Held-out metrics', evaluation);
  if (direct && !(isRecord(evaluation) && Object.values(evaluation).some(isRecordArray))) return { tables: direct, rest: {} };
  if (!isRecord(evaluation)) return { tables: [], rest: { value: evaluation } };
  const tables: EvaluationTable[] = [];
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(evaluation)) {
    const t = isRecordArray(v) || isRecord(v) ? tablesOf(k, v) : null;
    if (t) tables.push(...t);
    else rest[k] = v;
  }
  return { tables, rest };
}

/** Numbers for a dense table: rates as percentages when the column says so, else 3 significant digits. */
export function formatCell(column: string, v: Cell): string {
  if (v === null) return '—';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'number') {
    if (/rate|accuracy|pass|fail|share|first|threshold/i.test(column) && v >= 0 && v <= 1) return `${(v * 100).toFixed(1)}%`;
    return Number.isInteger(v) ? String(v) : v.toPrecision(3);
  }
  return v;
}
