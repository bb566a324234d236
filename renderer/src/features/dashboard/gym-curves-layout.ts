/**
 * Where the gym curves' text goes (pure, so a unit test checks it without a browser): phase labels
 * above the plot that never overlap one another or run past the panel's edges, and a left margin
 * wide enough that the y axis's title never touches its tick labels. Text widths are estimated at
 * CHAR_WIDTH per character of the 10 px chart font (its widest digits and capitals are ~6 px).
 */

/** Estimated width of one character of 10 px chart text, rounded up. */
export const CHAR_WIDTH = 6.2;
/** Space kept between two labels on one row. */
const GAP = 6;

export interface PlacedLabel {
  /** Left edge of the text (text-anchor start). */
  x: number;
  /** 0: the upper row, 1: the lower one. */
  row: number;
  /** The label as drawn: the full label, a shorter form, or '' where none fits. */
  text: string;
}

/** The shorter forms of a label, longest first: "gym 3 → DA1" → "→ DA1" → "DA1". */
function shorter(label: string): string[] {
  const m = /→ ((?:DA|CA)\d+)$/.exec(label);
  return m ? [`→ ${m[1]}`, m[1]!] : [];
}

/**
 * Labels for segments starting at `starts` (pixels, ascending), drawn within [left, right] on
 * `rows` rows: each at its segment's start (moved left at the right edge), on the first row where
 * it clears the labels already there, in a shorter form where the full one fits no row, and
 * left out ('') where nothing fits.
 */
export function placeLabels(starts: readonly number[], labels: readonly string[], left: number, right: number, rows = 2): PlacedLabel[] {
  const rowEnd = Array.from({ length: rows }, () => -Infinity);
  return labels.map((label, i) => {
    for (const text of [label, ...shorter(label)]) {
      const width = text.length * CHAR_WIDTH;
      if (width > right - left) continue;
      const x = Math.max(left, Math.min(starts[i]! + 3, right - width));
      const row = rowEnd.findIndex((end) => x >= end + GAP);
      if (row >= 0) {
        rowEnd[row] = x + width;
        return { x, row, text };
      }
    }
    return { x: Math.max(left, Math.min(starts[i]! + 3, right)), row: 0, text: '' };
  });
}

/** Where the rotated y title's baseline sits, from the panel's left edge; its glyphs reach about 2 px right of it. */
export const Y_TITLE_X = 12;

/**
 * The left margin for y tick labels `ticks` (text-anchor end, 9 px left of the axis: 6 px tick and
 * 3 px padding): their left ends stay 6 px clear of the rotated y title, and never less than `min`.
 */
export function leftMargin(ticks: readonly string[], min = 58): number {
  const widest = Math.max(0, ...ticks.map((t) => t.length)) * CHAR_WIDTH;
  return Math.ceil(Math.max(min, Y_TITLE_X + 2 + 6 + widest + 9));
}
