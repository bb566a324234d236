/**
 * What every d3 chart shares: the mount contract (`create-<name>-chart.ts(node, callbacks)`
 * returns update/destroy), a width-following SVG, and the palette. Colours and fonts are set as
 * SVG presentation attributes, not CSS, so a downloaded SVG or PNG looks like the screen.
 */
import * as d3 from 'd3';

export interface Chart<D> {
  update(data: D): void;
  destroy(): void;
}

export const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";

export const COLORS = {
  da: '#2563eb',
  ca: '#ea580c',
  daSoft: '#dbeafe',
  caSoft: '#ffedd5',
  fraud: '#7c3aed',
  tauBand: '#dcfce7',
  tau: '#16a34a',
  ok: '#16a34a',
  muted: '#94a3b8',
  grid: '#e2e8f0',
  axis: '#64748b',
  text: '#0f172a',
  textSoft: '#475569',
  band: '#bfdbfe',
  raw: '#cbd5e1',
  paused: '#fde68a',
  failed: '#fecaca',
  done: '#e2e8f0',
} as const;

export type Svg = d3.Selection<SVGSVGElement, unknown, null, undefined>;

/**
 * An SVG filling `node`'s width; `render(width)` runs now and again whenever the width changes.
 * Returns the svg and a disposer.
 */
export function mountSvg(node: HTMLElement, label: string, render: (svg: Svg, width: number) => void): { svg: Svg; rerender: () => void; dispose: () => void } {
  const svg = d3
    .select(node)
    .append('svg')
    .attr('role', 'img')
    .attr('aria-label', label)
    .attr('font-family', FONT)
    .attr('font-size', 11)
    .attr('fill', COLORS.text)
    .attr('xmlns', 'http://www.w3.org/2000/svg');
  let width = 0;
  const rerender = () => {
    width = Math.max(240, Math.floor(node.clientWidth));
    render(svg, width);
  };
  const ro = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => {
    if (Math.floor(node.clientWidth) !== width) rerender();
  });
  ro?.observe(node);
  return {
    svg,
    rerender,
    dispose: () => {
      ro?.disconnect();
      svg.remove();
    },
  };
}

export function pct(x: number): string {
  return `${Math.round(x * 100)}%`;
}

/** Style an axis for export: presentation attributes only. */
export function styleAxis<G extends d3.BaseType>(g: d3.Selection<G, unknown, null, undefined>): void {
  g.attr('font-family', FONT).attr('font-size', 10).attr('color', COLORS.axis);
  g.selectAll('.domain').attr('stroke', COLORS.grid);
  g.selectAll('.tick line').attr('stroke', COLORS.grid);
  g.selectAll('.tick text').attr('fill', COLORS.axis);
}
