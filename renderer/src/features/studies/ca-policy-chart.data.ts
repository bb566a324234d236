/**
 * Geometry of one head of the CA's choice, first match → last, per arm (the Studies screen's
 * CA-policy panel; `report --study --ca-policy` draws the same in host/report/study-report.ts): a
 * row per value, in it one dumbbell per arm from the first match's mean probability to the last's,
 * with the last's 95% interval; x is the probability, 0–1.
 */
import type { StudyCaPolicyArm } from '../../../../core/contract/contract';

export interface CaPolicyDumbbell {
  arm: string;
  y: number;
  /** x of the first match's mean (hollow), of the last's (filled), and of the last's interval (null: none). */
  first: number;
  last: number;
  ci: [number, number] | null;
  title: string;
}

export interface CaPolicyGeometry {
  width: number;
  height: number;
  /** Where the axis starts and ends (x of p = 0 and p = 1). */
  x0: number;
  x1: number;
  plotBottom: number;
  values: { label: string; y: number }[];
  dumbbells: CaPolicyDumbbell[];
}

export const CA_POLICY_CHART = { width: 280, left: 112, right: 12, top: 6, bottom: 20, perArm: 8 } as const;

const two = (v: number) => v.toFixed(2);

export function caPolicyGeometry(head: string, arms: readonly StudyCaPolicyArm[]): CaPolicyGeometry {
  const { width, left, right, top, bottom, perArm } = CA_POLICY_CHART;
  const values = [...new Set(arms.flatMap((a) => a.rows.filter((r) => r.head === head).map((r) => r.value)))];
  const band = 12 + perArm * arms.length;
  const height = top + bottom + band * values.length;
  const x = (p: number) => left + Math.max(0, Math.min(1, p)) * (width - left - right);
  const dumbbells: CaPolicyDumbbell[] = [];
  values.forEach((value, vi) =>
    arms.forEach((a, ai) => {
      const r = a.rows.find((row) => row.head === head && row.value === value);
      if (!r || !r.first.n) return;
      dumbbells.push({
        arm: a.arm,
        y: top + vi * band + 10 + ai * perArm,
        first: x(r.first.mean),
        last: x(r.last.mean),
        ci: r.last.ci ? [x(r.last.ci[0]), x(r.last.ci[1])] : null,
        title: `${a.arm} ${head} = ${value}: ${two(r.first.mean)} → ${two(r.last.mean)} (${r.up} up / ${r.down} down of ${r.change.n} seeds)`,
      });
    }),
  );
  return {
    width,
    height,
    x0: x(0),
    x1: x(1),
    plotBottom: height - bottom,
    values: values.map((v, vi) => ({ label: v === 'null' ? 'none' : v, y: top + vi * band + band / 2 + 4 })),
    dumbbells,
  };
}
