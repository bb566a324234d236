/**
 * Agreement between people who label the same items with nominal categories (tactic labels,
 * judge-audit fields): Cohen's κ for two raters, Fleiss' κ for a fixed number of raters per item,
 * and Krippendorff's α (nominal) for any number of raters with missing labels. Pure functions over
 * plain arrays; `null` marks a missing label.
 */

/** Cohen's κ (Cohen 1960) of two raters over the same items; items either leaves blank are dropped. */
export function cohenKappa<C>(a: readonly (C | null)[], b: readonly (C | null)[]): number {
  if (a.length !== b.length) throw new Error(`cohenKappa: the raters label different numbers of items (${a.length} vs ${b.length})`);
  const pairs: [C, C][] = [];
  for (let i = 0; i < a.length; i++) if (a[i] !== null && b[i] !== null) pairs.push([a[i]!, b[i]!]);
  const n = pairs.length;
  if (n === 0) return Number.NaN;
  const ca = new Map<C, number>();
  const cb = new Map<C, number>();
  let agree = 0;
  for (const [x, y] of pairs) {
    ca.set(x, (ca.get(x) ?? 0) + 1);
    cb.set(y, (cb.get(y) ?? 0) + 1);
    if (x === y) agree++;
  }
  const po = agree / n;
  let pe = 0;
  for (const [c, k] of ca) pe += (k / n) * ((cb.get(c) ?? 0) / n);
  // Both raters used one and the same category throughout: κ is undefined (0/0).
  if (pe === 1) return Number.NaN;
  return (po - pe) / (1 - pe);
}

/**
 * Fleiss' κ (Fleiss 1971) from a subjects × categories count table: counts[i][j] raters put
 * subject i in category j. Every subject must have the same number of ratings (≥ 2).
 */
export function fleissKappa(counts: readonly (readonly number[])[]): number {
  const N = counts.length;
  if (N === 0) return Number.NaN;
  const n = counts[0]!.reduce((s, x) => s + x, 0);
  if (n < 2) throw new Error('fleissKappa: each subject needs at least two ratings');
  const k = counts[0]!.length;
  const colTotals = new Array<number>(k).fill(0);
  let pBar = 0;
  counts.forEach((row, i) => {
    const sum = row.reduce((s, x) => s + x, 0);
    if (row.length !== k || sum !== n) throw new Error(`fleissKappa: subject ${i} has ${sum} ratings in ${row.length} categories, expected ${n} in ${k}`);
    row.forEach((x, j) => (colTotals[j]! += x));
    pBar += (row.reduce((s, x) => s + x * x, 0) - n) / (n * (n - 1));
  });
  pBar /= N;
  const pe = colTotals.reduce((s, t) => s + (t / (N * n)) ** 2, 0);
  if (pe === 1) return Number.NaN;
  return (pBar - pe) / (1 - pe);
}

/** The count table fleissKappa takes, from raters × items labels; only items every rater labelled count. */
export function fleissCounts<C>(byRater: readonly (readonly (C | null)[])[], categories: readonly C[]): number[][] {
  const items = byRater[0]?.length ?? 0;
  const at = new Map(categories.map((c, j) => [c, j]));
  const rows: number[][] = [];
  for (let i = 0; i < items; i++) {
    const labels = byRater.map((r) => r[i] ?? null);
    if (labels.some((l) => l === null)) continue;
    const row = new Array<number>(categories.length).fill(0);
    for (const l of labels) {
      const j = at.get(l!);
      if (j === undefined) throw new Error(`fleissCounts: ${String(l)} is not one of the categories`);
      row[j]!++;
    }
    rows.push(row);
  }
  return rows;
}

/**
 * Krippendorff's α for nominal data (Krippendorff 2011, "Computing Krippendorff's
 * alpha-reliability"): byRater[r][i] is rater r's label of item i or null. Items with fewer than
 * two labels are not pairable and drop out. α = 1 − D_o / D_e from the coincidence matrix.
 */
export function krippendorffAlphaNominal<C>(byRater: readonly (readonly (C | null)[])[]): number {
  const items = byRater[0]?.length ?? 0;
  if (byRater.some((r) => r.length !== items)) throw new Error('krippendorffAlpha: the raters label different numbers of items');
  // o[c][k]: the coincidence matrix, as a map of maps over the values that occur.
  const o = new Map<C, Map<C, number>>();
  const add = (c: C, k: C, w: number) => {
    const row = o.get(c) ?? new Map<C, number>();
    row.set(k, (row.get(k) ?? 0) + w);
    o.set(c, row);
  };
  for (let i = 0; i < items; i++) {
    const values = byRater.map((r) => r[i]).filter((v): v is C => v !== null && v !== undefined);
    const m = values.length;
    if (m < 2) continue;
    for (let a = 0; a < m; a++) for (let b = 0; b < m; b++) if (a !== b) add(values[a]!, values[b]!, 1 / (m - 1));
  }
  const nc = new Map<C, number>();
  let n = 0;
  for (const [c, row] of o) {
    const t = [...row.values()].reduce((s, x) => s + x, 0);
    nc.set(c, t);
    n += t;
  }
  if (n <= 1) return Number.NaN;
  let observed = 0; // Σ_{c≠k} o_ck
  for (const [c, row] of o) for (const [k, x] of row) if (c !== k) observed += x;
  let expected = 0; // Σ_{c≠k} n_c n_k
  for (const [c, a] of nc) for (const [k, b] of nc) if (c !== k) expected += a * b;
  if (expected === 0) return Number.NaN;
  return 1 - ((n - 1) * observed) / expected;
}
