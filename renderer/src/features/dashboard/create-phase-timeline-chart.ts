/** The run's phases as a strip of boxes, the current one outlined; gyms in their agent's colour. */
import { COLORS, mountSvg } from '../../charts/chart-kit';
import type { Chart } from '../../charts/chart-kit';
import type { PhaseSegment } from './phase-timeline.data';

const HEIGHT = 44;

function fill(s: PhaseSegment): string {
  switch (s.kind) {
    case 'gym':
      return s.role === 'CA' ? COLORS.caSoft : COLORS.daSoft;
    case 'match':
      return '#f1f5f9';
    case 'paused':
      return COLORS.paused;
    case 'failed':
      return COLORS.failed;
    case 'evaluate':
    case 'done':
      return COLORS.tauBand;
    default:
      return '#f8fafc';
  }
}

/** Average glyph width of the UI font relative to its size: a label longer than its box is shortened, never cut. */
const GLYPH = 0.55;

/** The segment's label that fits a box `w` px wide: full, else short, else short without the ellipsis. */
export function fitLabel(s: Pick<PhaseSegment, 'label' | 'short'>, w: number, active: boolean): string {
  const size = w < 70 ? 9 : 11;
  const fits = (t: string) => t.length * size * GLYPH <= w - 6;
  const dots = active ? ' …' : '';
  for (const t of [`${s.label}${dots}`, `${s.short}${dots}`]) if (fits(t)) return t;
  return s.short;
}

export function createPhaseTimelineChart(node: HTMLElement, _callbacks: object): Chart<PhaseSegment[]> {
  let segments: PhaseSegment[] = [];
  const { rerender, dispose } = mountSvg(node, 'Run phases', (svg, width) => {
    svg.attr('width', width).attr('height', HEIGHT);
    const n = Math.max(1, segments.length);
    const gap = 4;
    const w = Math.min(130, (width - gap * (n - 1)) / n);
    const active = (s: PhaseSegment) => s.state === 'active';
    const boxes = svg
      .selectAll<SVGGElement, PhaseSegment>(':scope > g')
      .data(segments, (s) => s.key)
      .join((enter) => {
        const g = enter.append('g');
        g.append('rect').attr('height', 30).attr('rx', 4);
        g.append('text').attr('y', 19).attr('text-anchor', 'middle');
        g.append('title');
        return g;
      })
      .attr('transform', (_s, i) => `translate(${i * (w + gap)},6)`);
    boxes
      .select('rect')
      .attr('width', w)
      .attr('fill', fill)
      .attr('stroke', (s) => (active(s) ? COLORS.da : s.kind === 'failed' ? '#dc2626' : COLORS.grid))
      .attr('stroke-width', (s) => (active(s) ? 2 : 1));
    boxes
      .select('text')
      .attr('x', w / 2)
      .attr('font-size', w < 70 ? 9 : 11)
      .attr('font-weight', (s) => (active(s) ? 600 : 400))
      .attr('fill', (s) => (s.kind === 'gym' ? (s.role === 'CA' ? COLORS.ca : COLORS.da) : COLORS.text))
      .text((s) => fitLabel(s, w, active(s)));
    boxes.select('title').text((s) => `${s.label}: ${active(s) ? 'in progress' : s.state === 'done' ? 'done' : 'ended'}`);
  });
  return {
    update(next) {
      segments = next;
      rerender();
    },
    destroy: dispose,
  };
}
