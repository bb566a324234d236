/**
 * Gym curves as small multiples: a row per agent (DA, then CA), each with reward mean ± std, KL
 * to the reference and loss. Every training phase (DA warm-up, CA pressure, gym N) is its own
 * segment, smoothed on its own, labelled above the plot and set off by a dashed line.
 */
import * as d3 from 'd3';
import { child, COLORS, mountSvg, styleAxis } from '../../charts/chart-kit';
import type { Chart } from '../../charts/chart-kit';
import { leftMargin, placeLabels, Y_TITLE_X } from './gym-curves-layout';
import type { CurvePanel, CurvePoint, CurveSegment } from './gym-curves.data';

const HEIGHT = 210;
const GAP = 22;
const M = { top: 38, right: 10, bottom: 40, left: 58 };
const COLUMNS = 3;

export function createGymCurvesChart(node: HTMLElement, _callbacks: object): Chart<CurvePanel[]> {
  let panels: CurvePanel[] = [];
  const { rerender, dispose } = mountSvg(node, 'Gym curves', (svg, width) => {
    const n = Math.min(COLUMNS, Math.max(1, panels.length));
    const rows = Math.max(1, Math.ceil(panels.length / COLUMNS));
    svg.attr('width', width).attr('height', rows * HEIGHT + (rows - 1) * GAP);
    const pw = (width - GAP * (n - 1)) / n;
    svg
      .selectAll<SVGGElement, CurvePanel>(':scope > g')
      .data(panels, (p) => p.key)
      .join('g')
      .attr('data-panel', (p) => p.key)
      .attr('transform', (_p, i) => `translate(${(i % COLUMNS) * (pw + GAP)},${Math.floor(i / COLUMNS) * (HEIGHT + GAP)})`)
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

/** Whole-number ticks only: steps are counts, so "0 0 0 1 1 1" must never appear. */
export function integerTicks(domain: readonly [number, number], count: number): number[] {
  const [a, b] = domain;
  const step = Math.max(1, Math.ceil(d3.tickIncrement(a, b, count) > 0 ? d3.tickIncrement(a, b, count) : 1));
  const out: number[] = [];
  for (let t = Math.ceil(a / step) * step; t <= b; t += step) out.push(t);
  return out;
}

/** One panel, its elements kept across updates: a live update re-attributes them (paths, axes). */
function drawPanel(g: d3.Selection<SVGGElement, unknown, null, undefined>, p: CurvePanel, pw: number): void {
  const color = p.agent === 'CA' ? COLORS.ca : COLORS.da;
  const bandColor = p.agent === 'CA' ? COLORS.caSoft : COLORS.band;
  child(g, 'text', 'title')
    .attr('x', Y_TITLE_X)
    .attr('y', 12)
    .attr('font-weight', 600)
    .attr('fill', p.agent === 'CA' ? COLORS.ca : COLORS.text)
    .text(p.title);
  const all = p.segments
    .flatMap((s) => [...s.points.flatMap((q) => [q.value, q.lo ?? q.value, q.hi ?? q.value]), ...s.raw.map((r) => r.value)])
    .filter(Number.isFinite);
  const plot = child(g, 'g', 'plot').attr('display', all.length ? null : 'none');
  child(g, 'text', 'empty')
    .attr('display', all.length ? 'none' : null)
    .attr('x', pw / 2)
    .attr('y', HEIGHT / 2)
    .attr('text-anchor', 'middle')
    .attr('fill', COLORS.muted)
    .text('no points yet');
  if (all.length === 0) return;
  const y = d3
    .scaleLinear()
    .domain(d3.extent(all) as [number, number])
    .nice()
    .range([HEIGHT - M.bottom, M.top]);
  if (y.domain()[0] === y.domain()[1]) y.domain([y.domain()[0]! - 1, y.domain()[1]! + 1]);
  const yFormat = d3.format('.2~g');
  // Wide enough for the widest tick label, so the y title never touches one.
  const left = leftMargin(y.ticks(4).map(yFormat), M.left);
  const steps = p.segments.flatMap((s) => [s.raw[0]?.step, s.raw.at(-1)?.step]).filter((x): x is number => x !== undefined);
  const x = d3
    .scaleLinear()
    .domain([Math.min(...steps), Math.max(...steps)])
    .range([left, pw - M.right]);
  if (x.domain()[0] === x.domain()[1]) x.domain([x.domain()[0]! - 1, x.domain()[1]! + 1]);
  const ya = child(plot, 'g', 'y-axis')
    .attr('transform', `translate(${left},0)`)
    .call(
      d3
        .axisLeft(y)
        .ticks(4)
        .tickSize(-(pw - left - M.right))
        .tickFormat(yFormat),
    );
  styleAxis(ya);
  ya.selectAll('.tick line').attr('stroke-opacity', 0.6);
  const xTicks = integerTicks(x.domain() as [number, number], Math.max(2, Math.floor((pw - left) / 70)));
  styleAxis(
    child(plot, 'g', 'x-axis')
      .attr('transform', `translate(0,${HEIGHT - M.bottom})`)
      .call(d3.axisBottom(x).tickValues(xTicks).tickFormat(d3.format('d'))),
  );
  child(plot, 'text', 'x-title')
    .attr('x', (left + pw - M.right) / 2)
    .attr('y', HEIGHT - 6)
    .attr('text-anchor', 'middle')
    .attr('font-size', 10)
    .attr('fill', COLORS.textSoft)
    .text(p.xTitle);
  child(plot, 'text', 'y-title')
    .attr('transform', `translate(${Y_TITLE_X},${(M.top + HEIGHT - M.bottom) / 2}) rotate(-90)`)
    .attr('text-anchor', 'middle')
    .attr('font-size', 10)
    .attr('fill', COLORS.textSoft)
    .text(p.yTitle);

  const segs = child(plot, 'g', 'segments')
    .selectAll<SVGGElement, CurveSegment>(':scope > g.segment')
    .data(p.segments, (s) => s.phase)
    .join((enter) => {
      const s = enter.append('g').attr('class', 'segment');
      s.append('line').attr('class', 'join').attr('stroke', COLORS.axis).attr('stroke-dasharray', '3 3').attr('stroke-opacity', 0.7);
      s.append('text').attr('class', 'segment-label').attr('font-size', 10).attr('fill', COLORS.textSoft);
      s.append('path').attr('class', 'band').attr('opacity', 0.6);
      s.append('path').attr('class', 'raw').attr('fill', 'none').attr('stroke', COLORS.raw).attr('stroke-width', 1);
      s.append('path').attr('class', 'smooth').attr('fill', 'none').attr('stroke-width', 1.8);
      // A phase of one logged step (a 1-step gym or warm-up) is a line with no length: a dot shows it.
      s.append('circle').attr('class', 'single').attr('r', 3);
      return s;
    })
    .attr('data-phase', (s) => s.phase);
  const start = (s: CurveSegment) => x(s.raw[0]?.step ?? 0);
  segs
    .select('.join')
    .attr('x1', start)
    .attr('x2', start)
    .attr('y1', M.top - 4)
    .attr('y2', HEIGHT - M.bottom)
    .attr('display', (_s, i) => (i === 0 ? 'none' : null));
  // Labels sit above the plot on two rows, inside the panel, never over one another: a label with
  // no room takes a shorter form ("→ DA1") or none (the full one kept in data-label).
  const placed = placeLabels(
    p.segments.map(start),
    p.segments.map((s) => s.label),
    left,
    pw - M.right,
  );
  segs
    .select('.segment-label')
    .attr('x', (_s, i) => placed[i]!.x)
    .attr('y', (_s, i) => M.top - 16 + placed[i]!.row * 10)
    .attr('data-label', (s) => s.label)
    .text((_s, i) => placed[i]!.text);
  segs
    .select('.band')
    .attr('fill', bandColor)
    .attr('d', (s) => {
      const banded = s.points.filter((q): q is CurvePoint & { lo: number; hi: number } => q.lo !== undefined && q.hi !== undefined);
      return banded.length
        ? d3
            .area<CurvePoint & { lo: number; hi: number }>()
            .x((q) => x(q.step))
            .y0((q) => y(q.lo))
            .y1((q) => y(q.hi))(banded)
        : null;
    });
  segs.select('.raw').attr('d', (s) =>
    d3
      .line<{ step: number; value: number }>()
      .x((q) => x(q.step))
      .y((q) => y(q.value))(s.raw),
  );
  segs
    .select('.smooth')
    .attr('stroke', color)
    .attr('d', (s) =>
      d3
        .line<CurvePoint>()
        .x((q) => x(q.step))
        .y((q) => y(q.value))(s.points),
    );
  segs
    .select('.single')
    .attr('fill', color)
    .attr('display', (s) => (s.points.length === 1 ? null : 'none'))
    .attr('cx', (s) => x(s.points[0]?.step ?? 0))
    .attr('cy', (s) => y(s.points[0]?.value ?? 0));
}
