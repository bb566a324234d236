/**
 * W_DA (blue) and W_CA (orange) per match. The green band is where the competency gate holds
 * (W_DA ≥ τ_DA); each match after the first carries its ε window — W_DA(t−1) ± ε — green when
 * it landed inside (stability gate met). Gyms between matches are shaded in the colour of the
 * agent that trained. Clicking a match selects it.
 */
import * as d3 from 'd3';
import { COLORS, mountSvg, pct, styleAxis } from '../../charts/chart-kit';
import type { Chart } from '../../charts/chart-kit';
import type { WinRateData, WinRatePoint } from './win-rate.data';

export interface WinRateChartData extends WinRateData {
  selectedMatchId: string | null;
}

export interface WinRateCallbacks {
  onSelectMatch?: (matchId: string) => void;
}

const HEIGHT = 260;
const M = { top: 26, right: 16, bottom: 30, left: 40 };

export function createWinRateChart(node: HTMLElement, callbacks: WinRateCallbacks): Chart<WinRateChartData> {
  let data: WinRateChartData | null = null;
  const { rerender, dispose } = mountSvg(node, 'Win rates per match', (svg, width) => {
    svg.attr('width', width).attr('height', HEIGHT).selectAll('*').remove();
    if (!data) return;
    const d = data;
    const x = d3.scaleLinear().domain([0.5, d.xMax + 0.5]).range([M.left, width - M.right]);
    const y = d3.scaleLinear().domain([0, 1]).range([HEIGHT - M.bottom, M.top]);
    const step = x(2) - x(1);

    // Gyms between match k and k+1.
    const gyms = svg.append('g');
    for (const g of d.gyms) {
      const x0 = x(g.afterMatch) + step * 0.18;
      const x1 = x(g.afterMatch + 1) - step * 0.18;
      gyms.append('rect').attr('x', x0).attr('y', M.top).attr('width', Math.max(0, x1 - x0)).attr('height', y(0) - M.top)
        .attr('fill', g.role === 'DA' ? COLORS.daSoft : COLORS.caSoft).attr('opacity', g.active ? 0.6 : 1)
        .append('title').text(g.label);
      gyms.append('text').attr('x', (x0 + x1) / 2).attr('y', y(0) - 6).attr('text-anchor', 'middle').attr('font-size', 10)
        .attr('fill', g.role === 'DA' ? COLORS.da : COLORS.ca).text(g.active ? `${g.role} gym…` : `${g.role} gym`);
    }

    // τ band: the competency zone.
    svg.append('rect').attr('x', M.left).attr('width', width - M.left - M.right).attr('y', y(1)).attr('height', y(d.tau) - y(1))
      .attr('fill', COLORS.tauBand).attr('opacity', 0.55);
    svg.append('line').attr('x1', M.left).attr('x2', width - M.right).attr('y1', y(d.tau)).attr('y2', y(d.tau))
      .attr('stroke', COLORS.tau).attr('stroke-dasharray', '4 3');
    svg.append('text').attr('x', width - M.right - 4).attr('y', y(d.tau) - 4).attr('text-anchor', 'end').attr('font-size', 10).attr('fill', COLORS.tau)
      .text(`τ_DA = ${d.tau.toFixed(2)}`);

    const yAxis = svg.append('g').attr('transform', `translate(${M.left},0)`).call(d3.axisLeft(y).ticks(5).tickFormat((v) => pct(Number(v))).tickSize(-(width - M.left - M.right)));
    styleAxis(yAxis);
    yAxis.selectAll('.tick line').attr('stroke-opacity', 0.6);
    const ticks = d3.range(1, d.xMax + 1);
    const xAxis = svg.append('g').attr('transform', `translate(0,${HEIGHT - M.bottom})`).call(d3.axisBottom(x).tickValues(ticks).tickFormat((v) => `M${v}`));
    styleAxis(xAxis);

    // ε windows.
    const eps = svg.append('g');
    for (const p of d.points) {
      if (!p.epsWindow) continue;
      const cx = x(p.match) - 9;
      const color = p.stabilityGate ? COLORS.ok : COLORS.muted;
      const g = eps.append('g').attr('stroke', color).attr('stroke-width', 1.5);
      g.append('line').attr('x1', cx).attr('x2', cx).attr('y1', y(p.epsWindow.lo)).attr('y2', y(p.epsWindow.hi));
      g.append('line').attr('x1', cx - 3).attr('x2', cx + 3).attr('y1', y(p.epsWindow.lo)).attr('y2', y(p.epsWindow.lo));
      g.append('line').attr('x1', cx - 3).attr('x2', cx + 3).attr('y1', y(p.epsWindow.hi)).attr('y2', y(p.epsWindow.hi));
      g.append('title').text(`ε window for M${p.match}: ${pct(p.epsWindow.lo)}–${pct(p.epsWindow.hi)} (${p.stabilityGate ? 'stability gate met' : 'outside ε'})`);
    }

    const line = (f: (p: WinRatePoint) => number) => d3.line<WinRatePoint>().x((p) => x(p.match)).y((p) => y(f(p)));
    svg.append('path').datum(d.points).attr('fill', 'none').attr('stroke', COLORS.ca).attr('stroke-width', 1.5).attr('stroke-dasharray', '5 3').attr('d', line((p) => p.wCa));
    svg.append('path').datum(d.points).attr('fill', 'none').attr('stroke', COLORS.da).attr('stroke-width', 2).attr('d', line((p) => p.wDa));

    const dots = svg.append('g');
    for (const p of d.points) {
      const selected = p.matchId === d.selectedMatchId;
      const g = dots.append('g').attr('cursor', 'pointer').attr('data-match', p.matchId).on('click', () => callbacks.onSelectMatch?.(p.matchId));
      if (selected) g.append('circle').attr('cx', x(p.match)).attr('cy', y(p.wDa)).attr('r', 8).attr('fill', 'none').attr('stroke', COLORS.da).attr('stroke-width', 1.5);
      g.append('circle').attr('cx', x(p.match)).attr('cy', y(p.wCa)).attr('r', 3.5).attr('fill', '#fff').attr('stroke', COLORS.ca).attr('stroke-width', 1.5);
      g.append('circle').attr('cx', x(p.match)).attr('cy', y(p.wDa)).attr('r', 4.5).attr('fill', p.competencyGate ? COLORS.da : '#fff').attr('stroke', COLORS.da).attr('stroke-width', 2);
      g.append('title').text(`M${p.match} (${p.matchId}): W_DA ${pct(p.wDa)}, W_CA ${pct(p.wCa)}${p.stop ? ' — stop' : ''}`);
      // A generous invisible hit area.
      g.append('rect').attr('x', x(p.match) - step / 4).attr('y', M.top).attr('width', step / 2).attr('height', y(0) - M.top).attr('fill', 'transparent');
    }

    const legend = svg.append('g').attr('transform', `translate(${M.left + 6},${M.top - 14})`).attr('font-size', 10);
    legend.append('line').attr('x1', 0).attr('x2', 16).attr('y1', 0).attr('y2', 0).attr('stroke', COLORS.da).attr('stroke-width', 2);
    legend.append('text').attr('x', 20).attr('y', 3).text('W_DA');
    legend.append('line').attr('x1', 60).attr('x2', 76).attr('y1', 0).attr('y2', 0).attr('stroke', COLORS.ca).attr('stroke-width', 1.5).attr('stroke-dasharray', '5 3');
    legend.append('text').attr('x', 80).attr('y', 3).text('W_CA');
    legend.append('line').attr('x1', 122).attr('x2', 122).attr('y1', -4).attr('y2', 4).attr('stroke', COLORS.ok).attr('stroke-width', 1.5);
    legend.append('text').attr('x', 128).attr('y', 3).text(`ε = ${d.epsilon.toFixed(2)} window`);
  });

  return {
    update(next) {
      data = next;
      rerender();
    },
    destroy: dispose,
  };
}
