/** Plain-text tables for the terminal. */
export function table(header: string[], rows: (string | number)[][], align: ('l' | 'r')[] = []): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, c) => Math.max(...cells.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((v, c) => (align[c] === 'r' ? v.padStart(widths[c]!) : v.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd();
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** A rate as a percentage with one decimal; n/a when there is none. The CLI's and the report's. */
export const pct = (x: number | null | undefined) => (x === null || x === undefined ? 'n/a' : `${(x * 100).toFixed(1)}%`);
