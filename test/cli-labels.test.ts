/**
 * `sparring labels export` in a child process, on a lab whose labels were written through the
 * engine (as the app writes them).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse as parseCsv } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LabelExportRow } from '../core/labels/types';
import { createEngine } from '../host/engine/engine';
import { unavailableRunService } from '../host/engine/runs-unavailable';

const run = promisify(execFile);
const BIN = path.resolve(__dirname, '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-cli-labels-'));
const db = path.join(tmp, 'lab.db');

async function sparring(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, '--db', db, ...args]);
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

beforeAll(async () => {
  const engine = createEngine({ dbPath: db, runService: unavailableRunService() });
  await engine.handlers['matches/play']({ da: 'scripted', ca: 'scripted', episodesPerScenario: 1, scenarios: 'arena', seed: 1 });
  await engine.handlers['labels/add-annotator']({ name: 'ann' });
  await engine.handlers['labels/create-queue']({ kind: 'tactic', perMatch: 4 });
  await engine.handlers['labels/create-queue']({ kind: 'audit', perMatch: 2 });
  await engine.handlers['labels/put']({ queueId: 'T1', pos: 0, annotator: 'ann', value: 'Other', note: 'says "hi", then asks', msSpent: 2500 });
  await engine.handlers['labels/put']({ queueId: 'T1', pos: 1, annotator: 'ann', value: null, msSpent: 300 });
  await engine.handlers['labels/put']({ queueId: 'A1', pos: 0, annotator: 'ann', value: { resolved: false, tier: 2, hallucination: true }, msSpent: 9000 });
  engine.close();
}, 60_000);

describe('sparring labels export', () => {
  it('writes JSON and CSV with annotator, time spent and item ids', async () => {
    const j = await sparring(['labels', 'export', '--format', 'json']);
    expect(j.code).toBe(0);
    expect(j.stderr).toMatch(/exported 3 labels/);
    const rows = JSON.parse(j.stdout) as LabelExportRow[];
    expect(rows.map((r) => [r.item_id, r.annotator, r.ms_spent, r.skipped])).toEqual([
      ['T1/0', 'ann', 2500, false],
      ['T1/1', 'ann', 300, true],
      ['A1/0', 'ann', 9000, false],
    ]);
    expect(rows.find((r) => r.item_id === 'A1/0')).toMatchObject({ resolved: false, tier: 2, hallucination: true, match_id: 'M1' });

    const out = path.join(tmp, 'labels.csv');
    const c = await sparring(['labels', 'export', '--format', 'csv', '--queue', 'T1', '--out', out]);
    expect(c.code).toBe(0);
    const csv = parseCsv<Record<string, string>>(readFileSync(out, 'utf8'), { columns: true });
    expect(csv.map((r) => [r.item_id, r.tactic, r.note, r.ms_spent])).toEqual([
      ['T1/0', 'Other', 'says "hi", then asks', '2500'],
      ['T1/1', '', '', '300'],
    ]);
  });

  it('names an unknown queue and a bad format', async () => {
    const q = await sparring(['labels', 'export', '--queue', 'T7']);
    expect(q.code).toBe(2);
    expect(q.stderr).toMatch(/no labelling queue "T7"/);
    const f = await sparring(['labels', 'export', '--format', 'xml']);
    expect(f.code).toBe(2);
    expect(f.stderr).toMatch(/--format.*xml|xml.*invalid|Allowed choices/i);
  });
});
