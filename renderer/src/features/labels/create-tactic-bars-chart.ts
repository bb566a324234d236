/** The CA's opening tactics per match (RL-ADA Table 5) as 100% stacked bars, one colour per label. */
import * as d3 from 'd3';
import { COLORS, mountSvg, pct, styleAxis } from '../../charts/chart-kit';
import type { Chart } from '../../charts/chart-kit';
import { tacticRowLabel } from './labels.data';
import type { TacticBar } from './labels.data';

export interface TacticBarsData {
  labels: string[];
  bars: TacticBar[];
}

const ROW = 26;
const M = { top: 30, right: 16, bottom: 24 };
/** Width of a character of the row labels (12 px sans), generous so a label never runs under its bar. */
const CHAR_PX = 7.2;

export function labelColor(labels: readonly string[], label: string): string {
  return d3.schemeTableau10[Math.max(0, labels.indexOf(label)) % 10]!;
}

export function createTacticBarsChart(node: HTMLElement): Chart<TacticBarsData> {
  let data: TacticBarsData | null = null;
  const { rerender, dispose } = mountSvg(node, 'Tactic distribution per match', (svg, width) => {
    const bars = data?.bars ?? [];
    const height = M.top + M.bottom + Math.max(1, bars.length) * ROW;
    svg.attr('width', width).attr('height', height).selectAll('*').remove();
    if (!data) return;
    const labels = data.labels;
    // The left margin fits the longest row label ("M12 · latest → CA7 (n=20)"), up to half the width.
    const left = Math.min(width / 2, 16 + Math.max(60, ...bars.map((b) => tacticRowLabel(b).length * CHAR_PX)));
    const x = d3
      .scaleLinear()
      .domain([0, 1])
      .range([left, width - M.right]);
    const y = d3
      .scaleBand<string>()
      .domain(bars.map((b) => b.matchId))
      .range([M.top, height - M.bottom])
      .padding(0.25);
    styleAxis(
      svg
        .append('g')
        .attr('transform', `translate(0,${height - M.bottom})`)
        .call(
          d3
            .axisBottom(x)
            .ticks(5)
            .tickFormat((v) => pct(Number(v))),
        ),
    );
    // Legend across the top, in hotkey order.
    let lx = 8;
    for (const l of labels) {
      const g = svg.append('g').attr('transform', `translate(${lx},10)`);
      g.append('rect').attr('width', 10).attr('height', 10).attr('fill', labelColor(labels, l)).attr('rx', 2);
      g.append('text').attr('x', 14).attr('y', 9).attr('fill', COLORS.textSoft).text(l);
      lx += 24 + l.length * 6;
    }
    for (const b of bars) {
      const yy = y(b.matchId)!;
      svg
        .append('text')
        .attr('x', left - 8)
        .attr('y', yy + y.bandwidth() / 2 + 4)
        .attr('text-anchor', 'end')
        .attr('fill', COLORS.textSoft)
        .text(tacticRowLabel(b));
      for (const s of b.segments) {
        if (s.share <= 0) continue;
        const r = svg
          .append('rect')
          .attr('x', x(s.start))
          .attr('y', yy)
          .attr('width', Math.max(0, x(s.start + s.share) - x(s.start)))
          .attr('height', y.bandwidth())
          .attr('fill', labelColor(labels, s.label));
        r.append('title').text(`${b.matchId}: ${s.label} ${pct(s.share)}`);
        if (x(s.start + s.share) - x(s.start) > 28) {
          svg
            .append('text')
            .attr('x', x(s.start) + 4)
            .attr('y', yy + y.bandwidth() / 2 + 4)
            .attr('fill', '#fff')
            .text(pct(s.share));
        }
      }
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
