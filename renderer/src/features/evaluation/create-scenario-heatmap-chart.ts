/**
 * Per-scenario held-out results as a heat map: held-out scenarios down, DA checkpoints across,
 * each cell coloured from worst (orange) to best (blue) of the chosen measure.
 */
import * as d3 from 'd3';
import { COLORS, mountSvg } from '../../charts/chart-kit';
import type { Chart } from '../../charts/chart-kit';
import type { ScenarioHeatmap } from './heldout-table.data';

const ROW = 24;
const LEFT = 230;
const TOP = 52;
const MAX_CELL = 96;

export function createScenarioHeatmapChart(node: HTMLElement, _callbacks: object): Chart<ScenarioHeatmap | null> {
  let data: ScenarioHeatmap | null = null;
  const color = d3.scaleLinear<string>().domain([0, 0.5, 1]).range([COLORS.ca, '#f8fafc', COLORS.da]).clamp(true);
  const { rerender, dispose } = mountSvg(node, 'Held-out results per scenario and DA checkpoint', (svg, width) => {
    svg.selectAll('*').remove();
    if (!data || data.scenarios.length === 0) return void svg.attr('width', width).attr('height', 0);
    const { scenarios, checkpoints, cells } = data;
    const cw = Math.max(36, Math.min(MAX_CELL, (width - LEFT - 8) / Math.max(1, checkpoints.length)));
    svg.attr('width', width).attr('height', TOP + scenarios.length * ROW + 4);
    legend(svg.append('g'), color, data.legend);
    const g = svg.append('g').attr('class', 'heatmap');
    checkpoints.forEach((c, j) =>
      g
        .append('text')
        .attr('x', LEFT + j * cw + cw / 2)
        .attr('y', TOP - 8)
        .attr('text-anchor', 'middle')
        .attr('font-weight', 600)
        .attr('fill', COLORS.textSoft)
        .text(c),
    );
    scenarios.forEach((s, i) =>
      g
        .append('text')
        .attr('x', LEFT - 8)
        .attr('y', TOP + i * ROW + ROW / 2 + 4)
        .attr('text-anchor', 'end')
        .attr('fill', COLORS.textSoft)
        .text(s),
    );
    for (const c of cells) {
      const i = scenarios.indexOf(c.scenarioId);
      const j = checkpoints.indexOf(c.checkpoint);
      const cell = g.append('g').attr('class', 'heat-cell').attr('data-scenario', c.scenarioId).attr('data-checkpoint', c.checkpoint);
      cell
        .append('rect')
        .attr('x', LEFT + j * cw)
        .attr('y', TOP + i * ROW)
        .attr('width', cw - 2)
        .attr('height', ROW - 2)
        .attr('rx', 3)
        .attr('fill', c.t === null ? COLORS.grid : color(c.t));
      cell
        .append('text')
        .attr('x', LEFT + j * cw + (cw - 2) / 2)
        .attr('y', TOP + i * ROW + ROW / 2 + 3)
        .attr('text-anchor', 'middle')
        .attr('font-size', 10)
        .attr('fill', c.t !== null && Math.abs(c.t - 0.5) > 0.3 ? '#ffffff' : COLORS.text)
        .text(c.text);
      cell.append('title').text(c.title);
    }
  });
  return {
    update(next) {
      data = next;
      rerender();
    },
    destroy: dispose,
  };
}

function legend(g: d3.Selection<SVGGElement, unknown, null, undefined>, color: d3.ScaleLinear<string, string>, ends: [string, string]): void {
  const w = 160;
  const id = 'scenario-heatmap-gradient';
  const grad = g.append('defs').append('linearGradient').attr('id', id);
  for (const t of [0, 0.5, 1])
    grad
      .append('stop')
      .attr('offset', `${t * 100}%`)
      .attr('stop-color', color(t));
  g.append('rect').attr('x', LEFT).attr('y', 4).attr('width', w).attr('height', 10).attr('rx', 2).attr('fill', `url(#${id})`);
  g.append('text')
    .attr('x', LEFT - 6)
    .attr('y', 13)
    .attr('text-anchor', 'end')
    .attr('font-size', 10)
    .attr('fill', COLORS.textSoft)
    .text(`worst ${ends[0]}`);
  g.append('text')
    .attr('x', LEFT + w + 6)
    .attr('y', 13)
    .attr('font-size', 10)
    .attr('fill', COLORS.textSoft)
    .text(`${ends[1]} best`);
}
