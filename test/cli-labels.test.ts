/**
 * `sparring labels export` in a child process (the export tables in-process), on a lab whose labels were written through the
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
import { sparringInProcess } from './support/cli-in-process';

const run = promisify(execFile);
const BIN = path.resolve(__dirname, '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-cli-labels-'));
const db = path.join(tmp, 'lab.db');

/** In this process (a child costs seconds of start-up): the export checks added for issue 52. */
const here = (args: string[]) => sparringInProcess(['--db', db, ...args]);

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
    // The opening the label is about, as the annotator read it.
    const t1 = JSON.parse((await here(['labels', 'export', '--format', 'json', '--queue', 'T1'])).stdout) as LabelExportRow[];
    expect(t1[0]!.text).toEqual(expect.stringMatching(/\w+ \w+/));
    expect(csv.map((r) => r.text)).toEqual(t1.map((r) => r.text));
    expect(rows.find((r) => r.item_id === 'A1/0')!.text).toBeNull();
  });

  it('exports the tactic queue as Table 5, agreement figures and a confusion matrix (sparring export T1 --table)', async () => {
    const t5 = await here(['export', 'T1', '--table', 'table5']);
    expect(t5.code, t5.stderr).toBe(0);
    const rows = parseCsv<Record<string, string>>(t5.stdout, { columns: true });
    expect(rows.map((r) => [r.match, r.Other])).toEqual([['M1', '1']]);
    expect(Object.keys(rows[0]!)).toEqual([
      'match',
      'ca',
      'items',
      'Direct intent',
      'Vague/indirect',
      'Contextual camouflage',
      'Emotional pressure',
      'Multi-intent',
      'Other',
    ]);
    const confusion: string[][] = parseCsv((await here(['export', 'T1', '--table', 'confusion'])).stdout, {});
    // One labelled item with a consensus (Other): one count in the Other column, whatever the classifier said.
    const otherCol = confusion[0]!.indexOf('Other');
    expect(confusion.slice(1).reduce((n, r) => n + Number(r[otherCol]), 0)).toBe(1);
    expect(
      confusion
        .slice(1)
        .flatMap((r) => r.slice(1))
        .reduce((n, v) => n + Number(v), 0),
    ).toBe(1);
    const agreement = JSON.parse((await here(['export', 'T1', '--table', 'agreement', '--format', 'json'])).stdout) as {
      rows: { measure: string; a: string; b: string }[];
    };
    expect(agreement.rows.map((r) => [r.measure, r.a, r.b])).toEqual([
      ['cohen_kappa', 'classifier', 'consensus'],
      ['cohen_kappa', 'classifier', 'ann'],
    ]);
    expect((await here(['export', 'A1', '--table', 'table5'])).stderr).toMatch(/no run, study or tactic labelling queue "A1"/);
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
