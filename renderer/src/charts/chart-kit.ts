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
 *
 * The width is read once at mount and then taken from the ResizeObserver: reading `clientWidth`
 * on every update forced a synchronous layout per chart per frame (several charts redrawing in
 * one frame each invalidated the layout the next one read), most of a live update's cost.
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
  const widthOf = (px: number) => Math.max(240, Math.floor(px));
  let width = widthOf(node.clientWidth);
  const rerender = () => render(svg, width);
  const ro =
    typeof ResizeObserver === 'undefined'
      ? null
      : new ResizeObserver((entries) => {
          const next = widthOf(entries.at(-1)?.contentRect.width ?? node.clientWidth);
          if (next === width) return;
          width = next;
          rerender();
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

/**
 * The one `<tag class="name">` child of `parent`, created on first use. Charts keep their
 * elements across updates and only change attributes (and join their data), rather than
 * rebuilding the SVG on every live event.
 */
export function child<K extends keyof SVGElementTagNameMap, P extends d3.BaseType>(
  parent: d3.Selection<P, unknown, null, undefined>,
  tag: K,
  name: string,
): d3.Selection<SVGElementTagNameMap[K], unknown, null, undefined> {
  const found = parent.select<SVGElementTagNameMap[K]>(`:scope > ${tag}.${name}`);
  return found.empty() ? (parent.append(tag).attr('class', name) as unknown as d3.Selection<SVGElementTagNameMap[K], unknown, null, undefined>) : found;
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
