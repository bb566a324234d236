/** Gym curves as small multiples: reward mean with a ±std band, KL to the reference, loss. */
import * as d3 from 'd3';
import { child, COLORS, mountSvg, styleAxis } from '../../charts/chart-kit';
import type { Chart } from '../../charts/chart-kit';
import type { CurvePanel, CurvePoint } from './gym-curves.data';

const HEIGHT = 190;
const GAP = 18;
const M = { top: 22, right: 8, bottom: 26, left: 44 };

export function createGymCurvesChart(node: HTMLElement, _callbacks: object): Chart<CurvePanel[]> {
  let panels: CurvePanel[] = [];
  const { rerender, dispose } = mountSvg(node, 'Gym curves', (svg, width) => {
    svg.attr('width', width).attr('height', HEIGHT);
    const n = Math.max(1, panels.length);
    const pw = (width - GAP * (n - 1)) / n;
    svg
      .selectAll<SVGGElement, CurvePanel>(':scope > g')
      .data(panels, (p) => p.key)
      .join('g')
      .attr('transform', (_p, i) => `translate(${i * (pw + GAP)},0)`)
      .each(function (p) {
        drawPanel(d3.select<SVGGElement, unknown>(this), p, pw);
      });
  });
  return {
    update(next) {
      panels = next;
      rerender();
    },
    destroy: dispose,
  };
}

/** One panel, its elements kept across updates: a live update re-attributes them (paths, axes). */
function drawPanel(g: d3.Selection<SVGGElement, unknown, null, undefined>, p: CurvePanel, pw: number): void {
  child(g, 'text', 'title').attr('x', M.left).attr('y', 12).attr('font-weight', 600).attr('fill', COLORS.text).text(p.title);
  const all = [...p.points.flatMap((q) => [q.value, q.lo ?? q.value, q.hi ?? q.value]), ...p.raw.map((r) => r.value)].filter(Number.isFinite);
  const plot = child(g, 'g', 'plot').attr('display', all.length ? null : 'none');
  child(g, 'text', 'empty').attr('display', all.length ? 'none' : null)
    .attr('x', pw / 2).attr('y', HEIGHT / 2).attr('text-anchor', 'middle').attr('fill', COLORS.muted).text('no points yet');
  if (all.length === 0) return;
  const steps = p.raw.map((r) => r.step);
  const x = d3.scaleLinear().domain(d3.extent(steps) as [number, number]).range([M.left, pw - M.right]);
  if (steps.length === 1) x.domain([steps[0]! - 1, steps[0]! + 1]);
  const y = d3.scaleLinear().domain(d3.extent(all) as [number, number]).nice().range([HEIGHT - M.bottom, M.top]);
  if (y.domain()[0] === y.domain()[1]) y.domain([y.domain()[0]! - 1, y.domain()[1]! + 1]);
  const ya = child(plot, 'g', 'y-axis').attr('transform', `translate(${M.left},0)`).call(d3.axisLeft(y).ticks(4).tickSize(-(pw - M.left - M.right)).tickFormat(d3.format('.2~g')));
  styleAxis(ya);
  ya.selectAll('.tick line').attr('stroke-opacity', 0.6);
  styleAxis(child(plot, 'g', 'x-axis').attr('transform', `translate(0,${HEIGHT - M.bottom})`).call(d3.axisBottom(x).ticks(4).tickFormat(d3.format('~d'))));
  const banded = p.points.filter((q): q is CurvePoint & { lo: number; hi: number } => q.lo !== undefined && q.hi !== undefined);
  child(plot, 'path', 'band').attr('fill', COLORS.band).attr('opacity', 0.6).attr('display', banded.length ? null : 'none')
    .attr('d', banded.length ? d3.area<CurvePoint & { lo: number; hi: number }>().x((q) => x(q.step)).y0((q) => y(q.lo)).y1((q) => y(q.hi))(banded) : null);
  child(plot, 'path', 'raw').attr('fill', 'none').attr('stroke', COLORS.raw).attr('stroke-width', 1)
    .attr('d', d3.line<{ step: number; value: number }>().x((q) => x(q.step)).y((q) => y(q.value))(p.raw));
  child(plot, 'path', 'smooth').attr('fill', 'none').attr('stroke', COLORS.da).attr('stroke-width', 1.8)
    .attr('d', d3.line<CurvePoint>().x((q) => x(q.step)).y((q) => y(q.value))(p.points));
}
