/** One head of the CA's choice, first match (hollow) → last (filled, with its 95% interval), a dumbbell per arm and value. */
import { useMemo } from 'react';
import type { StudyCaPolicyArm } from '../../../../core/contract/contract';
import { caPolicyGeometry } from './ca-policy-chart.data';

export function CaPolicyChart({ head, arms, colourOf }: { head: string; arms: readonly StudyCaPolicyArm[]; colourOf: (arm: string) => string }) {
  const g = useMemo(() => caPolicyGeometry(head, arms), [head, arms]);
  const mid = (g.x0 + g.x1) / 2;
  return (
    <figure className="band-chart" data-testid={`ca-policy-chart-${head}`}>
      <figcaption className="small">{head}</figcaption>
      <svg viewBox={`0 0 ${g.width} ${g.height}`} width={g.width} height={g.height} role="img" aria-label={`the CA's ${head}, first match → last`}>
        {[
          [g.x0, '0'],
          [mid, '0.5'],
          [g.x1, '1'],
        ].map(([x, label]) => (
          <g key={label}>
            <line x1={x} x2={x} y1={0} y2={g.plotBottom} stroke="#e2e8f0" />
            <text x={x} y={g.plotBottom + 13} fontSize={10} textAnchor="middle" fill="#64748b">
              {label}
            </text>
          </g>
        ))}
        {g.values.map((v) => (
          <text key={v.label} x={g.x0 - 6} y={v.y} fontSize={11} textAnchor="end" fill="#334155">
            {v.label}
          </text>
        ))}
        {g.dumbbells.map((d, i) => {
          const c = colourOf(d.arm);
          return (
            <g key={i} data-arm={d.arm}>
              <title>{d.title}</title>
              {d.ci && <line x1={d.ci[0]} x2={d.ci[1]} y1={d.y} y2={d.y} stroke={c} strokeOpacity={0.35} strokeWidth={5} />}
              <line x1={d.first} x2={d.last} y1={d.y} y2={d.y} stroke={c} strokeWidth={1.5} />
              <circle cx={d.first} cy={d.y} r={3} fill="#fff" stroke={c} strokeWidth={1.5} />
              <circle cx={d.last} cy={d.y} r={3.5} fill={c} />
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
