/** MADS L-2 success per complexity (blue) and per adversity (orange), horizontal bars on [0, 1]. */
import * as d3 from 'd3';
import { COLORS, mountSvg, pct, styleAxis } from '../../charts/chart-kit';
import type { Chart } from '../../charts/chart-kit';
import type { RobustnessBar } from './robustness.data';

const ROW = 20;
const M = { top: 8, right: 90, bottom: 26, left: 190 };

export function createRobustnessChart(node: HTMLElement): Chart<RobustnessBar[]> {
  let bars: RobustnessBar[] = [];
  const { rerender, dispose } = mountSvg(node, 'MADS L-2 success by complexity and adversity', (svg, width) => {
    const height = M.top + M.bottom + Math.max(1, bars.length) * ROW;
    svg.attr('width', width).attr('height', height).selectAll('*').remove();
    if (!bars.length) return;
    const x = d3
      .scaleLinear()
      .domain([0, 1])
      .range([M.left, width - M.right]);
    const y = d3
      .scaleBand<string>()
      .domain(bars.map((b) => b.key))
      .range([M.top, height - M.bottom])
      .padding(0.22);
    const axis = svg
      .append('g')
      .attr('transform', `translate(0,${height - M.bottom})`)
      .call(
        d3
          .axisBottom(x)
          .ticks(5)
          .tickFormat((v) => pct(Number(v)))
          .tickSize(-(height - M.top - M.bottom)),
      );
    styleAxis(axis);
    axis.selectAll('.tick line').attr('stroke-opacity', 0.6);
    for (const b of bars) {
      const yy = y(b.key)!;
      const g = svg.append('g').attr('data-bar', b.key);
      g.append('rect')
        .attr('x', x(0))
        .attr('y', yy)
        .attr('width', x(1) - x(0))
        .attr('height', y.bandwidth())
        .attr('fill', '#f8fafc');
      g.append('rect')
        .attr('x', x(0))
        .attr('y', yy)
        .attr('width', Math.max(0, x(b.value) - x(0)))
        .attr('height', y.bandwidth())
        .attr('fill', b.group === 'complexity' ? COLORS.da : COLORS.ca)
        .attr('rx', 2);
      g.append('text')
        .attr('x', M.left - 8)
        .attr('y', yy + y.bandwidth() / 2 + 4)
        .attr('text-anchor', 'end')
        .attr('fill', COLORS.textSoft)
        .text(`${b.group === 'complexity' ? '' : '⚡ '}${b.label}`);
      g.append('text')
        .attr('x', x(1) + 6)
        .attr('y', yy + y.bandwidth() / 2 + 4)
        .attr('fill', COLORS.textSoft)
        .text(`${pct(b.value)} · n=${b.episodes}`);
      g.append('title').text(`${b.group} ${b.label}: L-2 ${pct(b.value)} over ${b.episodes} episodes`);
    }
  });
  return {
    update(next) {
      bars = next;
      rerender();
    },
    destroy: dispose,
  };
}
