import { describe, expect, it } from 'vitest';
import { CHAR_WIDTH, leftMargin, placeLabels, Y_TITLE_X } from './gym-curves-layout';
import { gymPanels, xTitle } from './gym-curves.data';

describe('gym curves: each agent on its own step axis', () => {
  it("lays an agent's phases end to end from 0, the other agent's steps taking no room", () => {
    const at = (phase: string, from: number, n: number) => Array.from({ length: n }, (_, i) => ({ step: from + i, value: i, phase }));
    // As a run logs them: DA warm-up 0–29, CA pressure 30–829, CA gym 830–879, DA gym 880–939.
    const series = {
      'gym/kl': [...at('bootstrap:DA0-grpo', 0, 30), ...at('bootstrap:CA0', 30, 800), ...at('gym:CA1', 830, 50), ...at('gym:DA1', 880, 60)],
    };
    const panels = gymPanels(series, 0);
    const da = panels.find((p) => p.key === 'DA:gym/kl')!;
    const ca = panels.find((p) => p.key === 'CA:gym/kl')!;
    const span = (s: { raw: { step: number }[] }) => [s.raw[0]!.step, s.raw.at(-1)!.step];
    expect(da.segments.map(span)).toEqual([
      [0, 29],
      [30, 89],
    ]);
    expect(ca.segments.map(span)).toEqual([
      [0, 799],
      [800, 849],
    ]);
    // Points and raw values move together.
    expect(da.segments[1]!.points.map((q) => q.step)).toEqual(da.segments[1]!.raw.map((r) => r.step));
    expect(da.xTitle).toBe(xTitle('DA'));
    expect(da.xTitle).toBe("DA GRPO update (the DA's own steps)");
    expect(ca.xTitle).toBe("CA GRPO update (the CA's own steps)");
  });
});

describe('gym curves: phase labels', () => {
  const overlaps = (a: { x: number; text: string }, b: { x: number; text: string }) =>
    a.x < b.x + b.text.length * CHAR_WIDTH && b.x < a.x + a.text.length * CHAR_WIDTH;

  it('never overlap on a row, never leave the panel, and shorten or drop only where nothing fits', () => {
    const labels = ['DA warm-up', 'gym 1 → CA1', 'gym 2 → CA2', 'gym 3 → DA1', 'gym 4 → CA3', 'gym 5 → DA2'];
    for (const width of [180, 300, 420, 900]) {
      // Segments crowded at the right, as short gyms after a long phase are.
      const starts = [58, width - 70, width - 55, width - 40, width - 25, width - 12];
      const placed = placeLabels(starts, labels, 58, width - 10);
      for (const [i, a] of placed.entries()) {
        if (!a.text) continue;
        expect(a.x).toBeGreaterThanOrEqual(58);
        expect(a.x + a.text.length * CHAR_WIDTH).toBeLessThanOrEqual(width - 10);
        expect([labels[i], ...['→ ', ''].map((p) => `${p}${labels[i]!.split('→ ')[1]}`)]).toContain(a.text);
        for (const b of placed.slice(0, i)) if (b.text && b.row === a.row) expect(overlaps(a, b), `${a.text} / ${b.text} at ${width}`).toBe(false);
      }
    }
    // With room, every label is whole and at its segment's start.
    const roomy = placeLabels([58, 300, 600], ['DA warm-up', 'gym 1 → DA1', 'gym 3 → DA2'], 58, 890);
    expect(roomy).toEqual([
      { x: 61, row: 0, text: 'DA warm-up' },
      { x: 303, row: 0, text: 'gym 1 → DA1' },
      { x: 603, row: 0, text: 'gym 3 → DA2' },
    ]);
    // At the right edge a label moves left instead of running off the panel.
    const edge = placeLabels([58, 880], ['DA warm-up', 'gym 1 → DA1'], 58, 890);
    expect(edge[1]!.x + 'gym 1 → DA1'.length * CHAR_WIDTH).toBeLessThanOrEqual(890);
  });
});

describe('gym curves: the y title and the tick labels', () => {
  it('the left margin keeps the widest tick label clear of the rotated y title', () => {
    for (const ticks of [
      ['0', '5', '10'],
      ['-0.012', '0', '0.012'],
      ['-1.5e+3', '0', '1.5e+3'],
    ]) {
      const left = leftMargin(ticks);
      const tickLeftEnd = left - 9 - Math.max(...ticks.map((t) => t.length)) * CHAR_WIDTH;
      expect(tickLeftEnd).toBeGreaterThanOrEqual(Y_TITLE_X + 2 + 6);
      expect(left).toBeGreaterThanOrEqual(58);
    }
  });
});
