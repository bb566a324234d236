/**
 * Results that leave the lab (issue 52 §2), on one small real run: `sparring export RUN --table`
 * as CSV and JSON, parsed back and compared with the lab's own figures (the held-out report the
 * app shows); episode CSVs with rounded floats; and the run's metrics as TensorBoard event files,
 * written live by `run --tensorboard` and again by `export --tensorboard`, read back with the real
 * `tensorboard` package's EventAccumulator from .venv and compared with the lab's stored series.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse as parseCsv } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../core/contract/contract';
import { runDetail } from '../host/report/result-tables';
import { openSqliteStore } from '../host/store/sqlite-store';
import { sparringInProcess } from './support/cli-in-process';
import { venvPython } from './support/python-env';
import { writeTinyStudyConfig } from './support/tiny-study-config';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-export-results-'));
const db = path.join(tmp, 'lab.db');
const live = path.join(tmp, 'tb-live');
const sparring = (args: string[]) => sparringInProcess([...args, '--db', db]);

let detail: RunDetail;
let series: { key: string; step: number; value: number }[];

/** Every scalar of the event files in `dir`, read by TensorBoard's own reader: tag → [step, value][]. */
async function readEvents(dir: string): Promise<Record<string, [number, number][]>> {
  const script = [
    'import sys, json',
    'from tensorboard.backend.event_processing.event_accumulator import EventAccumulator',
    "ea = EventAccumulator(sys.argv[1], size_guidance={'scalars': 0})",
    'ea.Reload()',
    "print(json.dumps({t: [[e.step, e.value] for e in ea.Scalars(t)] for t in ea.Tags()['scalars']}))",
  ].join('\n');
  const { stdout } = await promisify(execFile)(venvPython(), ['-c', script, dir], { maxBuffer: 64 << 20 });
  return JSON.parse(stdout) as Record<string, [number, number][]>;
}

beforeAll(async () => {
  const r = await sparring(['run', '--config', writeTinyStudyConfig(tmp), '--tensorboard', live]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toMatch(/TensorBoard: \d+ scalar points in .*tb-live\/R1\/events\.out\.tfevents\./);
  const store = openSqliteStore(db);
  detail = runDetail(store, 'R1');
  series = store.db.prepare('SELECT key, step, value FROM run_metrics WHERE run_id = ? ORDER BY key, step').all('R1') as typeof series;
  store.close();
}, 240_000);

describe('sparring export --table', () => {
  it("writes Table 4 as CSV whose every figure is the lab's held-out report's, and JSON with the same rows", async () => {
    const csv = await sparring(['export', 'R1', '--table', 'table4', '--format', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    const rows = parseCsv<Record<string, string>>(csv.stdout, { columns: true });
    const tables = [detail.heldout!.vsRun, detail.heldout!.vsReference!];
    const expected = tables.flatMap((t) => t.rows.flatMap((r) => r.cells.map((c, i) => ({ metric: r.key, checkpoint: t.checkpoints[i], c }))));
    expect(rows).toHaveLength(expected.length);
    expect(rows.length).toBeGreaterThanOrEqual(12);
    rows.forEach((row, i) => {
      const { metric, checkpoint, c } = expected[i]!;
      expect([row.metric, row.checkpoint, Number(row.episodes)]).toEqual([metric, checkpoint, c.n]);
      expect(Number(row.value)).toBeCloseTo(c.value!, 10);
      if (c.ci) expect([Number(row.ci_low), Number(row.ci_high)]).toEqual([expect.closeTo(c.ci[0], 10), expect.closeTo(c.ci[1], 10)]);
      else expect([row.ci_low, row.ci_high]).toEqual(['', '']);
    });
    expect(new Set(rows.map((r) => r.opponent))).toEqual(new Set([`run CA (${detail.heldout!.vsRun.opponent})`, 'scripted']));

    const json = await sparring(['export', 'R1', '--table', 'table4', '--format', 'json']);
    const doc = JSON.parse(json.stdout) as { name: string; columns: string[]; rows: Record<string, unknown>[] };
    expect(doc.name).toBe('table4');
    expect(doc.rows.map((r) => [r.metric, r.checkpoint, r.value])).toEqual(rows.map((r) => [r.metric, r.checkpoint, r.value === '' ? null : Number(r.value)]));
  });

  it('writes the per-scenario and match tables, every table at once as JSON or as a folder of CSVs, and names what a run lacks', async () => {
    const all = JSON.parse((await sparring(['export', 'R1', '--table', 'all', '--format', 'json'])).stdout) as {
      tables: { name: string; rows: Record<string, unknown>[] }[];
    };
    // No panel evaluation was run: no panel table.
    expect(all.tables.map((t) => t.name)).toEqual(['table4', 'scenarios', 'matches']);
    const matches = all.tables[2]!.rows;
    expect(matches.map((m) => [m.match, m.w_da, m.decoy_rate])).toEqual(
      detail.matchSummaries.map((m) => [m.index, expect.closeTo(m.wDa, 10), expect.closeTo(m.tactics.decoyRate, 10)]),
    );
    const scenarios = all.tables[1]!.rows;
    const first = detail.heldout!.vsRun.scenarios[0]!;
    expect(scenarios[0]).toMatchObject({ scenario: first.scenarioId, checkpoint: 'DA0', episodes: first.cells[0]!.episodes });

    const folder = path.join(tmp, 'tables');
    expect((await sparring(['export', 'R1', '--table', 'all', '--out', folder])).code).toBe(0);
    expect(readdirSync(folder).sort()).toEqual(['sparring-R1-matches.csv', 'sparring-R1-scenarios.csv', 'sparring-R1-table4.csv']);
    expect(parseCsv(readFileSync(path.join(folder, 'sparring-R1-scenarios.csv'), 'utf8'), { columns: true })).toHaveLength(scenarios.length);

    const panel = await sparring(['export', 'R1', '--table', 'panel']);
    expect([panel.code, panel.stderr]).toEqual([2, expect.stringMatching(/R1 has no panel table .*sparring eval --panel/)]);
    const wrong = await sparring(['export', 'R1', '--table', 'arms']);
    expect(wrong.stderr).toMatch(/a run has the tables table4, scenarios, matches, panel; "arms" is not one of them/);
    expect((await sparring(['export', 'R9', '--table', 'table4'])).stderr).toMatch(/no run, study or tactic labelling queue "R9"/);
    expect((await sparring(['export', 'R1', '--table', 'all'])).stderr).toMatch(/give --out FOLDER/);
  });

  it('writes episode CSVs with floats rounded (12 significant digits: no binary round-off such as 0.29000000000000004)', async () => {
    const csv = await sparring(['export', 'R1', '--format', 'csv']);
    expect(csv.code).toBe(0);
    const rows = parseCsv<Record<string, string>>(csv.stdout, { columns: true });
    expect(rows.length).toBe(detail.matchSummaries.length * 20);
    const numbers = rows.flatMap((r) => [r.r_da!, r.r_ca!, r.ca_realism!, r.da_env_speak!]).filter((v) => v !== '');
    expect(numbers.length).toBeGreaterThan(100);
    for (const v of numbers) expect(v).toBe(String(Number(Number(v).toPrecision(12))));
    expect(numbers.filter((v) => /\.\d{13,}/.test(v))).toEqual([]);
  });
});

describe('sparring export --tensorboard', () => {
  it("writes TensorBoard event files, live and afterwards, that TensorBoard's reader reads as the lab's own series", async () => {
    const liveTags = await readEvents(path.join(live, 'R1'));
    // Every stored metric series, point for point (TensorBoard keeps float32).
    const keys = [...new Set(series.map((s) => s.key))];
    expect(keys.length).toBeGreaterThan(3);
    for (const k of keys) {
      const stored = series.filter((s) => s.key === k);
      expect(
        liveTags[k]?.map(([step]) => step),
        k,
      ).toEqual(stored.map((s) => s.step));
      liveTags[k]!.forEach(([, v], i) => expect(v).toBeCloseTo(stored[i]!.value, 5));
    }
    expect(liveTags['arena/W_DA']).toEqual(detail.matchSummaries.map((m) => [m.index, expect.closeTo(m.wDa, 6)]));
    expect(liveTags['tactics/hedge_rate']).toEqual(detail.matchSummaries.map((m) => [m.index, expect.closeTo(m.tactics.hedgeRate, 6)]));
    const routing = detail.heldout!.vsRun.rows.find((r) => r.key === 'routing')!;
    expect(liveTags['heldout/run_ca/routing']).toEqual(routing.cells.map((c, i) => [i, expect.closeTo(c.value!, 6)]));
    expect(liveTags['heldout/scripted/meanReward']).toHaveLength(detail.heldout!.vsReference!.checkpoints.length);

    // Afterwards, and with --follow on a finished run (one read, then it ends): the same scalars.
    const after = path.join(tmp, 'tb-after');
    const r = await sparring(['export', 'R1', '--tensorboard', after, '--follow', '--interval', '0.05']);
    expect(r.code, r.stderr).toBe(0);
    expect(await readEvents(path.join(after, 'R1'))).toEqual(liveTags);
    // Written again into the same folder: Sparring's earlier file is replaced, not doubled.
    expect((await sparring(['export', 'R1', '--tensorboard', after])).code).toBe(0);
    expect(readdirSync(path.join(after, 'R1'))).toHaveLength(1);
    expect(await readEvents(path.join(after, 'R1'))).toEqual(liveTags);
    expect((await sparring(['export', 'R1', '--follow'])).stderr).toMatch(/--follow goes with --tensorboard/);
  });
});
