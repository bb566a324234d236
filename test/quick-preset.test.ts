/**
 * The `quick` preset shows what the method does (issue 52): a 2-seed quick study of `full` and
 * `no-ca-training` — the README's first study — in which, on the default seed (1), the DA trains at
 * least once, W_DA falls after a CA gym and rises after a DA gym; and the two arms differ. With the
 * preset before issue 52 the DA never trained (DA0 opened at W_DA 95.8% and the stopping rule's
 * weaker agent was always the CA), every run's final DA was DA0, and every paired difference was
 * 0.0 [0.0, 0.0].
 *
 * The slowest test file this issue adds: four quick runs (two per seed, two workers), about 25 s
 * of CPU per `full` run and less for `no-ca-training`, whose CA never trains.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sparringInProcess } from './support/cli-in-process';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-quick-'));

interface RunMatch {
  wDa: number;
  gyms?: ('DA' | 'CA')[];
}

interface Measure {
  n: number;
  mean: number;
}

describe('the quick preset', () => {
  it('on its default seed trains the DA, and W_DA falls after a CA gym and rises after a DA gym; a 2-seed study tells its arms apart', async () => {
    const db = path.join(tmp, 'lab.db');
    const r = await sparringInProcess([
      '--json',
      'study',
      '--preset',
      'quick',
      '--seeds',
      '2',
      '--arms',
      'full,no-ca-training',
      '--no-panel',
      '--workers',
      '2',
      '--db',
      db,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as {
      runs: { arm: string; seed: number; runId: string; status: string }[];
      paired: { a: string; b: string; measures: Record<string, Measure> }[];
    };
    expect(s.runs.every((x) => x.status === 'finished')).toBe(true);

    // The default seed's `full` run, as `sparring run --preset quick` plays it.
    const full1 = s.runs.find((x) => x.arm === 'full' && x.seed === 1)!;
    const lab = new Database(db, { readonly: true });
    const snapshot = JSON.parse(lab.prepare('SELECT snapshot_json FROM runs WHERE id = ?').pluck().get(full1.runId) as string) as {
      context: { matches: RunMatch[] };
    };
    const daGyms = lab.prepare("SELECT COUNT(*) FROM checkpoints WHERE run_id = ? AND role = 'DA' AND source = 'gym'").pluck().get(full1.runId) as number;
    lab.close();
    const matches = snapshot.context.matches;
    const wDa = matches.map((m) => m.wDa);
    expect(daGyms, `W_DA ${wDa.join(', ')}`).toBeGreaterThanOrEqual(1);
    // The gyms between match i and i + 1, and what W_DA did across them.
    const across = matches.slice(0, -1).map((m, i) => ({ gym: m.gyms?.[0], change: wDa[i + 1]! - wDa[i]! }));
    expect(
      across.some((a) => a.gym === 'CA' && a.change < 0),
      `W_DA ${wDa.join(', ')}`,
    ).toBe(true);
    expect(
      across.some((a) => a.gym === 'DA' && a.change > 0),
      `W_DA ${wDa.join(', ')}`,
    ).toBe(true);
    // Non-monotonic: it goes down and up.
    expect(across.some((a) => a.change < 0) && across.some((a) => a.change > 0)).toBe(true);

    // The arms differ: some paired difference over the two seeds is not zero.
    const pair = s.paired.find((p) => p.a === 'no-ca-training' && p.b === 'full')!;
    const differences = Object.entries(pair.measures).filter(([, m]) => m.n === 2 && Number.isFinite(m.mean));
    expect(differences.length).toBeGreaterThan(0);
    expect(
      differences.some(([, m]) => Math.abs(m.mean) > 1e-9),
      JSON.stringify(pair.measures),
    ).toBe(true);
  }, 1_500_000);
});
