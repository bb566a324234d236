/**
 * W_DA (blue) and W_CA (orange) per match. The green band is where the competency gate holds
 * (W_DA ≥ τ_DA); each match after the first carries its ε window — W_DA(t−1) ± ε — green when
 * it landed inside (stability gate met). Gyms between matches are shaded in the colour of the
 * agent that trained. Clicking a match selects it.
 */
import * as d3 from 'd3';
import { child, COLORS, mountSvg, pct, styleAxis } from '../../charts/chart-kit';
import type { Chart } from '../../charts/chart-kit';
import type { GymSpan, WinRateData, WinRatePoint } from './win-rate.data';

export interface WinRateChartData extends WinRateData {
  selectedMatchId: string | null;
}

export interface WinRateCallbacks {
  onSelectMatch?: (matchId: string) => void;
}

const HEIGHT = 274;
const M = { top: 26, right: 16, bottom: 44, left: 54 };

export function createWinRateChart(node: HTMLElement, callbacks: WinRateCallbacks): Chart<WinRateChartData> {
  let data: WinRateChartData | null = null;
  const { rerender, dispose } = mountSvg(node, 'Win rates per match', (svg, width) => {
    svg.attr('width', width).attr('height', HEIGHT);
    if (!data) return void svg.selectAll('*').remove();
    const d = data;
    const x = d3
      .scaleLinear()
      .domain([0.5, d.xMax + 0.5])
      .range([M.left, width - M.right]);
    const y = d3
      .scaleLinear()
      .domain([0, 1])
      .range([HEIGHT - M.bottom, M.top]);
    const step = x(2) - x(1);

    // Gyms between match k and k+1.
    const gx0 = (g: GymSpan) => x(g.afterMatch) + step * 0.18;
    const gx1 = (g: GymSpan) => x(g.afterMatch + 1) - step * 0.18;
    const gyms = child(svg, 'g', 'gyms')
      .selectAll<SVGGElement, GymSpan>('g')
      .data(d.gyms, (g) => `${g.role}:${g.afterMatch}`)
      .join((enter) => {
        const g = enter.append('g');
        g.append('rect').append('title');
        g.append('text').attr('text-anchor', 'middle').attr('font-size', 10);
        return g;
      });
    gyms
      .select('rect')
      .attr('x', gx0)
      .attr('y', M.top)
      .attr('width', (g) => Math.max(0, gx1(g) - gx0(g)))
      .attr('height', y(0) - M.top)
      .attr('fill', (g) => (g.role === 'DA' ? COLORS.daSoft : COLORS.caSoft))
      .attr('opacity', (g) => (g.active ? 0.6 : 1))
      .select('title')
      .text((g) => g.label);
    gyms
      .select('text')
      .attr('x', (g) => (gx0(g) + gx1(g)) / 2)
      .attr('y', y(0) - 6)
      .attr('fill', (g) => (g.role === 'DA' ? COLORS.da : COLORS.ca))
      .text((g) => (g.active ? `${g.role} gym…` : `${g.role} gym`));

    // τ band: the competency zone.
    const tau = child(svg, 'g', 'tau');
    child(tau, 'rect', 'band')
      .attr('x', M.left)
      .attr('width', width - M.left - M.right)
      .attr('y', y(1))
      .attr('height', y(d.tau) - y(1))
      .attr('fill', COLORS.tauBand)
      .attr('opacity', 0.55);
    child(tau, 'line', 'line')
      .attr('x1', M.left)
      .attr('x2', width - M.right)
      .attr('y1', y(d.tau))
      .attr('y2', y(d.tau))
      .attr('stroke', COLORS.tau)
      .attr('stroke-dasharray', '4 3');
    child(tau, 'text', 'label')
      .attr('x', width - M.right - 4)
      .attr('y', y(d.tau) - 4)
      .attr('text-anchor', 'end')
      .attr('font-size', 10)
      .attr('fill', COLORS.tau)
      .text(`τ_DA = ${d.tau.toFixed(2)}`);

    const yAxis = child(svg, 'g', 'y-axis')
      .attr('transform', `translate(${M.left},0)`)
      .call(
        d3
          .axisLeft(y)
          .ticks(5)
          .tickFormat((v) => pct(Number(v)))
          .tickSize(-(width - M.left - M.right)),
      );
    styleAxis(yAxis);
    yAxis.selectAll('.tick line').attr('stroke-opacity', 0.6);
    const ticks = d3.range(1, d.xMax + 1);
    styleAxis(
      child(svg, 'g', 'x-axis')
        .attr('transform', `translate(0,${HEIGHT - M.bottom})`)
        .call(
          d3
            .axisBottom(x)
            .tickValues(ticks)
            .tickFormat((v) => `M${Number(v)}`),
        ),
    );
    child(svg, 'text', 'x-title')
      .attr('x', (M.left + width - M.right) / 2)
      .attr('y', HEIGHT - 8)
      .attr('text-anchor', 'middle')
      .attr('font-size', 10)
      .attr('fill', COLORS.textSoft)
      .text('arena match (M1, M2, … in run order)');
    child(svg, 'text', 'y-title')
      .attr('transform', `translate(12,${(M.top + HEIGHT - M.bottom) / 2}) rotate(-90)`)
      .attr('text-anchor', 'middle')
      .attr('font-size', 10)
      .attr('fill', COLORS.textSoft)
      .text('win rate (share of episodes)');

    // ε windows.
    const cx = (p: WinRatePoint) => x(p.match) - 9;
    const lo = (p: WinRatePoint) => y(p.epsWindow!.lo);
    const hi = (p: WinRatePoint) => y(p.epsWindow!.hi);
    const eps = child(svg, 'g', 'eps')
      .selectAll<SVGGElement, WinRatePoint>('g')
      .data(
        d.points.filter((p) => p.epsWindow),
        (p) => p.matchId,
      )
      .join((enter) => {
        const g = enter.append('g').attr('stroke-width', 1.5);
        g.append('line').attr('class', 'whisker');
        g.append('line').attr('class', 'lo');
        g.append('line').attr('class', 'hi');
        g.append('title');
        return g;
      })
      .attr('stroke', (p) => (p.stabilityGate ? COLORS.ok : COLORS.muted));
    eps.select('.whisker').attr('x1', cx).attr('x2', cx).attr('y1', lo).attr('y2', hi);
    eps
      .select('.lo')
      .attr('x1', (p) => cx(p) - 3)
      .attr('x2', (p) => cx(p) + 3)
      .attr('y1', lo)
      .attr('y2', lo);
    eps
      .select('.hi')
      .attr('x1', (p) => cx(p) - 3)
      .attr('x2', (p) => cx(p) + 3)
      .attr('y1', hi)
      .attr('y2', hi);
    eps
      .select('title')
      .text((p) => `ε window for M${p.match}: ${pct(p.epsWindow!.lo)}–${pct(p.epsWindow!.hi)} (${p.stabilityGate ? 'stability gate met' : 'outside ε'})`);

    const line = (f: (p: WinRatePoint) => number) =>
      d3
        .line<WinRatePoint>()
        .x((p) => x(p.match))
        .y((p) => y(f(p)));
    const lines = child(svg, 'g', 'lines').attr('fill', 'none');
    child(lines, 'path', 'w-ca')
      .attr('stroke', COLORS.ca)
      .attr('stroke-width', 1.5)
      .attr('stroke-dasharray', '5 3')
      .attr('d', line((p) => p.wCa)(d.points));
    child(lines, 'path', 'w-da')
      .attr('stroke', COLORS.da)
      .attr('stroke-width', 2)
      .attr('d', line((p) => p.wDa)(d.points));

    const dots = child(svg, 'g', 'dots')
      .selectAll<SVGGElement, WinRatePoint>('g')
      .data(d.points, (p) => p.matchId)
      .join((enter) => {
        const g = enter
          .append('g')
          .attr('cursor', 'pointer')
          .on('click', (_e, p) => callbacks.onSelectMatch?.(p.matchId));
        g.append('circle').attr('class', 'ring').attr('r', 8).attr('fill', 'none').attr('stroke', COLORS.da).attr('stroke-width', 1.5);
        g.append('circle').attr('class', 'w-ca').attr('r', 3.5).attr('fill', '#fff').attr('stroke', COLORS.ca).attr('stroke-width', 1.5);
        g.append('circle').attr('class', 'w-da').attr('r', 4.5).attr('stroke', COLORS.da).attr('stroke-width', 2);
        g.append('title');
        // A generous invisible hit area.
        g.append('rect').attr('fill', 'transparent');
        return g;
      })
      .attr('data-match', (p) => p.matchId);
    dots
      .select('.ring')
      .attr('display', (p) => (p.matchId === d.selectedMatchId ? null : 'none'))
      .attr('cx', (p) => x(p.match))
      .attr('cy', (p) => y(p.wDa));
    dots
      .select('.w-ca')
      .attr('cx', (p) => x(p.match))
      .attr('cy', (p) => y(p.wCa));
    dots
      .select('.w-da')
      .attr('cx', (p) => x(p.match))
      .attr('cy', (p) => y(p.wDa))
      .attr('fill', (p) => (p.competencyGate ? COLORS.da : '#fff'));
    dots.select('title').text((p) => `M${p.match} (${p.matchId}): W_DA ${pct(p.wDa)}, W_CA ${pct(p.wCa)}${p.stop ? ' — stop' : ''}`);
    dots
      .select('rect')
      .attr('x', (p) => x(p.match) - step / 4)
      .attr('y', M.top)
      .attr('width', step / 2)
      .attr('height', y(0) - M.top);

    const legend = child(svg, 'g', 'legend')
      .attr('transform', `translate(${M.left + 6},${M.top - 14})`)
      .attr('font-size', 10);
    if (legend.select('text').empty()) {
      legend.append('line').attr('x1', 0).attr('x2', 16).attr('y1', 0).attr('y2', 0).attr('stroke', COLORS.da).attr('stroke-width', 2);
      legend.append('text').attr('x', 20).attr('y', 3).text('W_DA');
      legend
        .append('line')
        .attr('x1', 60)
        .attr('x2', 76)
        .attr('y1', 0)
        .attr('y2', 0)
        .attr('stroke', COLORS.ca)
        .attr('stroke-width', 1.5)
        .attr('stroke-dasharray', '5 3');
      legend.append('text').attr('x', 80).attr('y', 3).text('W_CA');
      legend.append('line').attr('x1', 122).attr('x2', 122).attr('y1', -4).attr('y2', 4).attr('stroke', COLORS.ok).attr('stroke-width', 1.5);
    }
    child(legend, 'text', 'eps')
      .attr('x', 128)
      .attr('y', 3)
      .text(`ε = ${d.epsilon.toFixed(2)} window`);
  });

  return {
    update(next) {
      data = next;
      rerender();
    },
    destroy: dispose,
  };
}
