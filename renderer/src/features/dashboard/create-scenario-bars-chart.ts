/** Per-scenario DA win rate of one match: blue for CA-winnable scenarios, violet for fraud references. */
import * as d3 from 'd3';
import { COLORS, mountSvg, pct, styleAxis } from '../../charts/chart-kit';
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
const M = { top: 8, right: 84, bottom: 26, left: 180 };

export function createScenarioBarsChart(node: HTMLElement, callbacks: ScenarioBarsCallbacks): Chart<ScenarioBarsData> {
  let data: ScenarioBarsData | null = null;
  const { rerender, dispose } = mountSvg(node, 'DA win rate per scenario', (svg, width) => {
    const bars = data?.bars ?? [];
    const height = M.top + M.bottom + Math.max(1, bars.length) * ROW;
    svg.attr('width', width).attr('height', height).selectAll('*').remove();
    if (!data) return;
    const x = d3.scaleLinear().domain([0, 1]).range([M.left, width - M.right]);
    const y = d3.scaleBand<string>().domain(bars.map((b) => b.scenarioId)).range([M.top, height - M.bottom]).padding(0.22);
    const axis = svg.append('g').attr('transform', `translate(0,${height - M.bottom})`).call(d3.axisBottom(x).ticks(5).tickFormat((v) => pct(Number(v))).tickSize(-(height - M.top - M.bottom)));
    styleAxis(axis);
    axis.selectAll('.tick line').attr('stroke-opacity', 0.6);

    for (const b of bars) {
      const g = svg.append('g').attr('cursor', 'pointer').on('click', () => callbacks.onSelectScenario?.(b.scenarioId));
      const yy = y(b.scenarioId)!;
      g.append('rect').attr('x', x(0)).attr('y', yy).attr('width', x(1) - x(0)).attr('height', y.bandwidth()).attr('fill', '#f8fafc');
      g.append('rect').attr('x', x(0)).attr('y', yy).attr('width', Math.max(0, x(b.rate) - x(0))).attr('height', y.bandwidth()).attr('fill', b.fraud ? COLORS.fraud : COLORS.da).attr('rx', 2);
      g.append('text').attr('x', M.left - 8).attr('y', yy + y.bandwidth() / 2 + 4).attr('text-anchor', 'end').attr('fill', COLORS.textSoft).text(b.fraud ? `${b.scenarioId} ⚑` : b.scenarioId);
      g.append('text').attr('x', x(1) + 6).attr('y', yy + y.bandwidth() / 2 + 4).attr('fill', COLORS.textSoft).text(`${b.wins}/${b.episodes} · ${pct(b.rate)}`);
      g.append('title').text(`${b.scenarioId}${b.fraud ? ' (fraud reference)' : ''}: DA won ${b.wins} of ${b.episodes}`);
    }
    svg.append('line').attr('x1', x(data.tau)).attr('x2', x(data.tau)).attr('y1', M.top).attr('y2', height - M.bottom).attr('stroke', COLORS.tau).attr('stroke-dasharray', '4 3');
  });
  return {
    update(next) {
      data = next;
      rerender();
    },
    destroy: dispose,
  };
}
