/** An automatic tactic measure against the human label: one dot per item (jittered), each label's mean as a bar. */
import * as d3 from 'd3';
import { COLORS, mountSvg, styleAxis } from '../../charts/chart-kit';
import type { Chart } from '../../charts/chart-kit';
import { labelColor } from './create-tactic-bars-chart';
import type { MeasureStrip } from './labels.data';

export interface MeasureStripData {
  strip: MeasureStrip;
  measure: string;
}

const M = { top: 12, right: 16, bottom: 44, left: 48 };
const HEIGHT = 240;

export function createMeasureStripChart(node: HTMLElement): Chart<MeasureStripData> {
  let data: MeasureStripData | null = null;
  const { rerender, dispose } = mountSvg(node, 'Automatic tactic measure by human label', (svg, width) => {
    svg.attr('width', width).attr('height', HEIGHT).selectAll('*').remove();
    if (!data) return;
    const { strip, measure } = data;
    const x = d3
      .scaleBand<string>()
      .domain(strip.labels)
      .range([M.left, width - M.right])
      .padding(0.3);
    const max = d3.max(strip.points, (p) => p.value) ?? 1;
    const y = d3
      .scaleLinear()
      .domain([0, max || 1])
      .nice()
      .range([HEIGHT - M.bottom, M.top]);
    styleAxis(
      svg
        .append('g')
        .attr('transform', `translate(0,${HEIGHT - M.bottom})`)
        .call(d3.axisBottom(x)),
    );
    styleAxis(svg.append('g').attr('transform', `translate(${M.left},0)`).call(d3.axisLeft(y).ticks(5)));
    svg
      .append('text')
      .attr('x', M.left)
      .attr('y', HEIGHT - 6)
      .attr('fill', COLORS.textSoft)
      .text(`${measure} by consensus label (dots: items; bars: mean)`);
    for (const m of strip.means) {
      if (!m.n) continue;
      const cx = x(m.label)!;
      svg
        .append('line')
        .attr('x1', cx)
        .attr('x2', cx + x.bandwidth())
        .attr('y1', y(m.mean))
        .attr('y2', y(m.mean))
        .attr('stroke', COLORS.text)
        .attr('stroke-width', 2)
        .append('title')
        .text(`${m.label}: mean ${m.mean.toFixed(3)} over ${m.n}`);
    }
    // A fixed jitter per item (from its position), so redraws do not shuffle the dots.
    for (const p of strip.points) {
      const jitter = (((p.pos * 2654435761) >>> 0) % 1000) / 1000;
      svg
        .append('circle')
        .attr('cx', x(p.label)! + x.bandwidth() * (0.15 + 0.7 * jitter))
        .attr('cy', y(p.value))
        .attr('r', 3.5)
        .attr('fill', labelColor(strip.labels, p.label))
        .attr('fill-opacity', 0.75)
        .append('title')
        .text(`item ${p.pos}: ${p.value.toFixed(3)}`);
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
