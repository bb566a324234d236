/** Per-scenario DA win rate of one match: blue for CA-winnable scenarios, violet for fraud references. */
import * as d3 from 'd3';
import { child, COLORS, mountSvg, pct, styleAxis } from '../../charts/chart-kit';
import type { Chart } from '../../charts/chart-kit';
import type { ScenarioBar } from './scenario-bars.data';

export interface ScenarioBarsData {
  bars: ScenarioBar[];
  tau: number;
}

export interface ScenarioBarsCallbacks {
  onSelectScenario?: (scenarioId: string) => void;
}

const ROW = 20;
const M = { top: 8, right: 84, bottom: 40, left: 180 };

export function createScenarioBarsChart(node: HTMLElement, callbacks: ScenarioBarsCallbacks): Chart<ScenarioBarsData> {
  let data: ScenarioBarsData | null = null;
  const { rerender, dispose } = mountSvg(node, 'DA win rate per scenario', (svg, width) => {
    const bars = data?.bars ?? [];
    const height = M.top + M.bottom + Math.max(1, bars.length) * ROW;
    svg.attr('width', width).attr('height', height);
    if (!data) return void svg.selectAll('*').remove();
    // A chart mounted hidden (before its first match) is measured narrower than its margins;
    // keep the bars' range non-empty so no width goes negative until the real width arrives.
    const x = d3
      .scaleLinear()
      .domain([0, 1])
      .range([M.left, Math.max(M.left + 1, width - M.right)]);
    const y = d3
      .scaleBand<string>()
      .domain(bars.map((b) => b.scenarioId))
      .range([M.top, height - M.bottom])
      .padding(0.22);
    const axis = child(svg, 'g', 'x-axis')
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
    child(svg, 'text', 'x-title')
      .attr('x', (x(0) + x(1)) / 2)
      .attr('y', height - 6)
      .attr('text-anchor', 'middle')
      .attr('font-size', 10)
      .attr('fill', COLORS.textSoft)
      .text('DA win rate (share of the scenario’s episodes)');

    const mid = (b: ScenarioBar) => y(b.scenarioId)! + y.bandwidth() / 2 + 4;
    const rows = child(svg, 'g', 'bars')
      .selectAll<SVGGElement, ScenarioBar>('g')
      .data(bars, (b) => b.scenarioId)
      .join((enter) => {
        const g = enter
          .append('g')
          .attr('cursor', 'pointer')
          .on('click', (_e, b) => callbacks.onSelectScenario?.(b.scenarioId));
        g.append('rect').attr('class', 'track').attr('fill', '#f8fafc');
        g.append('rect').attr('class', 'rate').attr('rx', 2);
        g.append('text').attr('class', 'name').attr('text-anchor', 'end').attr('fill', COLORS.textSoft);
        g.append('text').attr('class', 'count').attr('fill', COLORS.textSoft);
        g.append('title');
        return g;
      });
    rows
      .select('.track')
      .attr('x', x(0))
      .attr('y', (b) => y(b.scenarioId)!)
      .attr('width', x(1) - x(0))
      .attr('height', y.bandwidth());
    rows
      .select('.rate')
      .attr('x', x(0))
      .attr('y', (b) => y(b.scenarioId)!)
      .attr('width', (b) => Math.max(0, x(b.rate) - x(0)))
      .attr('height', y.bandwidth())
      .attr('fill', (b) => (b.fraud ? COLORS.fraud : COLORS.da));
    rows
      .select('.name')
      .attr('x', M.left - 8)
      .attr('y', mid)
      .text((b) => (b.fraud ? `${b.scenarioId} ⚑` : b.scenarioId));
    rows
      .select('.count')
      .attr('x', x(1) + 6)
      .attr('y', mid)
      .text((b) => `${b.wins}/${b.episodes} · ${pct(b.rate)}`);
    rows.select('title').text((b) => `${b.scenarioId}${b.fraud ? ' (fraud reference)' : ''}: DA won ${b.wins} of ${b.episodes}`);
    child(svg, 'line', 'tau')
      .attr('x1', x(data.tau))
      .attr('x2', x(data.tau))
      .attr('y1', M.top)
      .attr('y2', height - M.bottom)
      .attr('stroke', COLORS.tau)
      .attr('stroke-dasharray', '4 3');
  });
  return {
    update(next) {
      data = next;
      rerender();
    },
    destroy: dispose,
  };
}
