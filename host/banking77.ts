/**
 * Importer for Banking77-format CSVs (`text,category`, RFC 4180 quoting; a quoted text may span
 * lines). Every row is either imported or reported with its line number: unknown categories and
 * malformed rows are never dropped silently. The data itself is never shipped with Sparring: a
 * user points at their copy (CC BY 4.0, PolyAI).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';

export interface CorpusRow {
  /** 1-based line where the record starts in the file. */
  line: number;
  text: string;
  intent: string;
}

export interface ImportProblem {
  line: number;
  problem: string;
}

export interface ImportResult {
  file: string;
  rows: CorpusRow[];
  problems: ImportProblem[];
  /** Rows per intent, for the summary. */
  perIntent: Record<string, number>;
}

/** Parse CSV text against the known intents (normally the taxonomy's). */
export function parseBanking77Csv(file: string, text: string, knownIntents: ReadonlySet<string>): ImportResult {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, { info: true, relax_column_count: true, skip_empty_lines: true, bom: true }) as unknown as typeof records;
  } catch (e) {
    const err = e as Error & { lines?: number };
    throw new Error(`${file}${err.lines ? `:${err.lines}` : ''}: not a readable CSV (${err.message})`, { cause: e });
  }
  if (records.length === 0) throw new Error(`${file}: empty file; expected a header "text,category" and rows`);
  const header = records[0]!.record.map((h) => h.trim().toLowerCase());
  if (header.length < 2 || header[0] !== 'text' || header[1] !== 'category') {
    throw new Error(`${file}:1: expected the header "text,category", got "${records[0]!.record.join(',')}"`);
  }
  const rows: CorpusRow[] = [];
  const problems: ImportProblem[] = [];
  const perIntent: Record<string, number> = {};
  // info.lines is the line where the record ENDS; track where each one starts.
  let nextStart = records[0]!.info.lines + 1;
  for (const { record, info } of records.slice(1)) {
    const line = nextStart;
    nextStart = info.lines + 1;
    if (record.length !== 2) {
      problems.push({ line, problem: `expected 2 columns (text, category), found ${record.length}` });
      continue;
    }
    const [rawText, rawCategory] = record as [string, string];
    const textValue = rawText.trim();
    const intent = rawCategory.trim();
    if (textValue === '') {
      problems.push({ line, problem: 'empty text' });
      continue;
    }
    if (!knownIntents.has(intent)) {
      problems.push({ line, problem: `unknown category "${intent}"` });
      continue;
    }
    rows.push({ line, text: textValue, intent });
    perIntent[intent] = (perIntent[intent] ?? 0) + 1;
  }
  return { file, rows, problems, perIntent };
}

export function readBanking77Csv(file: string, knownIntents: ReadonlySet<string>): ImportResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { cause: e });
  }
  return parseBanking77Csv(file, text, knownIntents);
}
