/**
 * Cross-play heat map as small multiples: W_DA, then one panel per arena scenario; in each, DA
 * checkpoints down and CA checkpoints across, the cell's colour the DA win rate (orange: the CA
 * wins, blue: the DA wins).
 */
import * as d3 from 'd3';
import { COLORS, mountSvg, pct } from '../../charts/chart-kit';
import type { Chart } from '../../charts/chart-kit';
import { wrapTitle } from './crossplay.data';
import type { HeatmapData } from './crossplay.data';

export interface CrossPlayHeatmapCallbacks {
  onSelectCell?: (da: string, ca: string, panel: string) => void;
}

const CELL = 34;
const GAP = 22;
const LEFT = 56;
/** Two title lines and the CA labels above the cells. */
const TOP = 46;
const LEGEND = 36;
const MIN_PANEL = 170;
/** Characters of a panel title's line that fit MIN_PANEL at 11 px. */
const TITLE_CHARS = 26;

export function createCrossPlayHeatmapChart(node: HTMLElement, callbacks: CrossPlayHeatmapCallbacks): Chart<HeatmapData> {
  let data: HeatmapData | null = null;
  const color = d3.scaleLinear<string>().domain([0, 0.5, 1]).range([COLORS.ca, '#f8fafc', COLORS.da]).clamp(true);
  const { rerender, dispose } = mountSvg(node, 'DA checkpoint × CA checkpoint win rates per scenario', (svg, width) => {
    svg.selectAll('*').remove();
    if (!data || data.das.length === 0 || data.cas.length === 0) return void svg.attr('width', width).attr('height', 0);
    const { das, cas, panels } = data;
    // Wide enough for a scenario's name even with one CA column.
    const pw = Math.max(LEFT + cas.length * CELL, MIN_PANEL);
    const ph = TOP + das.length * CELL;
    const perRow = Math.max(1, Math.floor((width + GAP) / (pw + GAP)));
    const rows = Math.ceil(panels.length / perRow);
    svg.attr('width', width).attr('height', LEGEND + rows * (ph + GAP));
    legend(svg.append('g'), color);
    panels.forEach((p, k) => {
      const g = svg
        .append('g')
        .attr('transform', `translate(${(k % perRow) * (pw + GAP)},${LEGEND + Math.floor(k / perRow) * (ph + GAP)})`)
        .attr('data-panel', p.id);
      const title = g
        .append('text')
        .attr('class', 'panel-title')
        .attr('x', 0)
        .attr('y', 12)
        .attr('font-weight', 600)
        .attr('fill', p.fraud ? COLORS.fraud : COLORS.text);
      wrapTitle(p.title, Math.max(TITLE_CHARS, Math.floor(pw / 6.2))).forEach((line, k) =>
        title
          .append('tspan')
          .attr('x', 0)
          .attr('dy', k === 0 ? 0 : 13)
          .text(line),
      );
      title.append('title').text(p.title);
      cas.forEach((ca, j) =>
        g
          .append('text')
          .attr('x', LEFT + j * CELL + CELL / 2)
          .attr('y', TOP - 6)
          .attr('text-anchor', 'middle')
          .attr('font-size', 9)
          .attr('fill', COLORS.textSoft)
          .text(ca),
      );
      das.forEach((da, i) =>
        g
          .append('text')
          .attr('x', LEFT - 6)
          .attr('y', TOP + i * CELL + CELL / 2 + 3)
          .attr('text-anchor', 'end')
          .attr('font-size', 9)
          .attr('fill', COLORS.textSoft)
          .text(da),
      );
      for (const c of p.cells) {
        const i = das.indexOf(c.da);
        const j = cas.indexOf(c.ca);
        if (i < 0 || j < 0) continue;
        const cell = g
          .append('g')
          .attr('class', 'heat-cell')
          .attr('cursor', 'pointer')
          .on('click', () => callbacks.onSelectCell?.(c.da, c.ca, p.id));
        cell
          .append('rect')
          .attr('x', LEFT + j * CELL)
          .attr('y', TOP + i * CELL)
          .attr('width', CELL - 2)
          .attr('height', CELL - 2)
          .attr('rx', 3)
          .attr('fill', c.rate === null ? COLORS.grid : color(c.rate));
        cell
          .append('text')
          .attr('x', LEFT + j * CELL + (CELL - 2) / 2)
          .attr('y', TOP + i * CELL + CELL / 2 + 2)
          .attr('text-anchor', 'middle')
          .attr('font-size', 9)
          .attr('fill', c.rate !== null && Math.abs(c.rate - 0.5) > 0.3 ? '#ffffff' : COLORS.text)
          .text(c.rate === null ? '–' : pct(c.rate));
        cell.append('title').text(`${c.da} vs ${c.ca} · ${p.id}: ${c.label}`);
      }
    });
  });
  return {
    update(next) {
      data = next;
      rerender();
    },
    destroy: dispose,
  };
}

function legend(g: d3.Selection<SVGGElement, unknown, null, undefined>, color: d3.ScaleLinear<string, string>): void {
  const w = 160;
  const id = 'crossplay-legend-gradient';
  const grad = g.append('defs').append('linearGradient').attr('id', id);
  for (const t of [0, 0.5, 1])
    grad
      .append('stop')
      .attr('offset', `${t * 100}%`)
      .attr('stop-color', color(t));
  g.append('text').attr('x', 0).attr('y', 14).attr('fill', COLORS.textSoft).text('DA win rate');
  g.append('rect').attr('x', 74).attr('y', 4).attr('width', w).attr('height', 12).attr('rx', 2).attr('fill', `url(#${id})`);
  g.append('text').attr('x', 74).attr('y', 28).attr('font-size', 9).attr('fill', COLORS.textSoft).text('0% (CA wins)');
  g.append('text')
    .attr('x', 74 + w)
    .attr('y', 28)
    .attr('text-anchor', 'end')
    .attr('font-size', 9)
    .attr('fill', COLORS.textSoft)
    .text('100% (DA wins)');
}
