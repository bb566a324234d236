/** The mismatch gap (training counterpart − panel average) per rate, bars with 95% t-interval whiskers around 0. */
import * as d3 from 'd3';
import { COLORS, mountSvg, styleAxis } from '../../charts/chart-kit';
import type { Chart } from '../../charts/chart-kit';
import type { GapBar } from './panel.data';

const ROW = 30;
const M = { top: 8, right: 150, bottom: 28, left: 110 };
const points = (v: number) => `${v >= 0 ? '+' : '−'}${Math.abs(v * 100).toFixed(1)}`;

export function createPanelGapChart(node: HTMLElement): Chart<GapBar[]> {
  let bars: GapBar[] = [];
  const { rerender, dispose } = mountSvg(node, 'Mismatch gap: training counterpart minus panel average', (svg, width) => {
    const height = M.top + M.bottom + Math.max(1, bars.length) * ROW;
    svg.attr('width', width).attr('height', height).selectAll('*').remove();
    if (!bars.length) return;
    const extent = Math.max(0.05, ...bars.flatMap((b) => [Math.abs(b.value), ...(b.ci ?? []).map(Math.abs)]));
    // Intervals over a handful of counterparts can pass ±100 points: the axis stops there.
    const lim = Math.min(1, extent * 1.1);
    const x = d3
      .scaleLinear()
      .domain([-lim, lim])
      .range([M.left, width - M.right])
      .clamp(true);
    const y = d3
      .scaleBand<string>()
      .domain(bars.map((b) => b.key))
      .range([M.top, height - M.bottom])
      .padding(0.3);
    const axis = svg
      .append('g')
      .attr('transform', `translate(0,${height - M.bottom})`)
      .call(
        d3
          .axisBottom(x)
          .ticks(5)
          .tickFormat((v) => points(Number(v)))
          .tickSize(-(height - M.top - M.bottom)),
      );
    styleAxis(axis);
    svg
      .append('line')
      .attr('x1', x(0))
      .attr('x2', x(0))
      .attr('y1', M.top)
      .attr('y2', height - M.bottom)
      .attr('stroke', COLORS.axis);
    for (const b of bars) {
      const yy = y(b.key)!;
      const mid = yy + y.bandwidth() / 2;
      const g = svg.append('g').attr('data-bar', b.key);
      g.append('rect')
        .attr('x', Math.min(x(0), x(b.value)))
        .attr('y', yy)
        .attr('width', Math.abs(x(b.value) - x(0)))
        .attr('height', y.bandwidth())
        .attr('fill', b.value >= 0 ? COLORS.da : COLORS.ca)
        .attr('rx', 2);
      if (b.ci) {
        g.append('line').attr('x1', x(b.ci[0])).attr('x2', x(b.ci[1])).attr('y1', mid).attr('y2', mid).attr('stroke', COLORS.text).attr('stroke-width', 1.5);
        for (const e of b.ci)
          g.append('line')
            .attr('x1', x(e))
            .attr('x2', x(e))
            .attr('y1', mid - 5)
            .attr('y2', mid + 5)
            .attr('stroke', COLORS.text)
            .attr('stroke-width', 1.5);
      }
      g.append('text')
        .attr('x', M.left - 8)
        .attr('y', mid + 4)
        .attr('text-anchor', 'end')
        .attr('fill', COLORS.textSoft)
        .text(b.label);
      const ci = b.ci ? ` [${points(b.ci[0])}, ${points(b.ci[1])}]` : '';
      g.append('text')
        .attr('x', width - M.right + 6)
        .attr('y', mid + 4)
        .attr('fill', COLORS.textSoft)
        .text(`${points(b.value)}${ci} pts`);
      g.append('title').text(`${b.label}: training − panel ${points(b.value)} points${ci}, 95% t interval over ${b.n} counterparts`);
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
