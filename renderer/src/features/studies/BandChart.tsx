/** A band chart (mean line with its 95% band per series) drawn from band-chart.data.ts's geometry. */
import { useMemo } from 'react';
import { bandGeometry } from './band-chart.data';
import type { BandSeriesInput } from './band-chart.data';

export const SERIES_COLOURS = ['#2563eb', '#ea580c', '#16a34a', '#7c3aed', '#db2777', '#0891b2', '#ca8a04', '#475569'];

export function BandChart({
  series,
  rate,
  tau,
  width = 560,
  height = 220,
  label,
  testId,
}: {
  series: (BandSeriesInput & { colour: string })[];
  rate: boolean;
  tau?: number;
  width?: number;
  height?: number;
  label: string;
  testId?: string;
}) {
  const g = useMemo(() => bandGeometry(series, { width, height, rate, ...(tau !== undefined ? { tau } : {}) }), [series, width, height, rate, tau]);
  return (
    <figure className="band-chart" data-testid={testId}>
      <svg viewBox={`0 0 ${g.width} ${g.height}`} width={g.width} height={g.height} role="img" aria-label={label}>
        {g.yTicks.map((t, i) => (
          <g key={i}>
            <line x1={48} x2={g.width - 12} y1={t.y} y2={t.y} stroke="#e2e8f0" />
            <text x={42} y={t.y + 4} fontSize={10} textAnchor="end" fill="#64748b">
              {t.label}
            </text>
          </g>
        ))}
        {g.xTicks.map((t, i) => (
          <text key={i} x={t.x} y={g.height - 8} fontSize={10} textAnchor="middle" fill="#334155">
            {t.label}
          </text>
        ))}
        {g.tau && (
          <g>
            <line x1={48} x2={g.width - 12} y1={g.tau.y} y2={g.tau.y} stroke="#16a34a" strokeDasharray="5 4" />
            <text x={g.width - 12} y={g.tau.y - 4} fontSize={10} textAnchor="end" fill="#16a34a">
              {g.tau.label}
            </text>
          </g>
        )}
        {g.series.map((s, i) => (
          <g key={s.name} data-series={s.name}>
            {s.band && <polygon points={s.band} fill={series[i]!.colour} fillOpacity={0.15} />}
            <polyline points={s.line} fill="none" stroke={series[i]!.colour} strokeWidth={2} />
            {s.dots.map((d, k) => (
              <circle key={k} cx={d.x} cy={d.y} r={3.5} fill="#fff" stroke={series[i]!.colour} strokeWidth={2}>
                <title>{d.title}</title>
              </circle>
            ))}
          </g>
        ))}
      </svg>
      <figcaption className="legend">
        {series.map((s) => (
          <span key={s.name} className="legend-item">
            <span className="swatch" style={{ background: s.colour }} /> {s.name}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
