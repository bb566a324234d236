/**
 * The labelling requests through the engine's validated handlers, on a temporary lab with two
 * scripted matches: queues, blind items, concurrent writes, the reports and the exports.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cohenKappa } from '../../core/labels/agreement';
import type { LabelExportRow } from '../../core/labels/types';
import { createEngine } from './engine';
import type { Engine } from './engine';
import { unavailableRunService } from './runs-unavailable';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-labels-engine-'));
let engine: Engine;

beforeAll(async () => {
  engine = createEngine({ dbPath: path.join(tmp, 'lab.db'), runService: unavailableRunService(), batchIntervalMs: 50 });
  for (const seed of [3, 4]) await engine.handlers['matches/play']({ da: 'scripted', ca: 'scripted', episodesPerScenario: 3, scenarios: 'arena', seed });
  await engine.handlers['labels/add-annotator']({ name: 'ann' });
  await engine.handlers['labels/add-annotator']({ name: 'bo' });
});
afterAll(() => {
  engine.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('tactic queues', () => {
  it('samples n openings per match, spread over scenarios, with the default label set', async () => {
    const q = await engine.handlers['labels/create-queue']({ kind: 'tactic', perMatch: 10, seed: 2 });
    expect(q).toMatchObject({ id: 'T1', kind: 'tactic', items: 20, matchIds: ['M1', 'M2'], perMatch: 10 });
    expect(q.labels).toEqual(['Direct intent', 'Vague/indirect', 'Contextual camouflage', 'Emotional pressure', 'Multi-intent', 'Other']);
  });

  it('shows an item blind: the opening only, its match and checkpoints once the annotator labels it', async () => {
    const item = (await engine.handlers['labels/item']({ queueId: 'T1', annotator: 'ann' }))!;
    expect(item).toMatchObject({ pos: 0, total: 20, done: 0, mine: null, source: null, turns: null });
    expect(item.text.length).toBeGreaterThan(0);
    expect(JSON.stringify(item)).not.toMatch(/"M[12]"|scripted/);
    await engine.handlers['labels/put']({ queueId: 'T1', pos: 0, annotator: 'ann', value: 'Direct intent', msSpent: 1200 });
    const after = (await engine.handlers['labels/item']({ queueId: 'T1', annotator: 'ann', pos: 0 }))!;
    expect(after.source).toMatchObject({ caSpec: 'scripted', daSpec: 'scripted' });
    expect(after.source!.matchId).toMatch(/^M[12]$/);
    // bo has not labelled it: still blind for bo.
    expect((await engine.handlers['labels/item']({ queueId: 'T1', annotator: 'bo', pos: 0 }))!.source).toBeNull();
  });

  it('keeps one row when the same annotator writes one item from two windows at once, one per annotator otherwise', async () => {
    await Promise.all([
      engine.handlers['labels/put']({ queueId: 'T1', pos: 1, annotator: 'ann', value: 'Other', msSpent: 100 }),
      engine.handlers['labels/put']({ queueId: 'T1', pos: 1, annotator: 'ann', value: 'Other', msSpent: 100 }),
      engine.handlers['labels/put']({ queueId: 'T1', pos: 1, annotator: 'bo', value: 'Multi-intent', msSpent: 100 }),
    ]);
    const { content } = await engine.handlers['labels/export']({ queueId: 'T1', format: 'json' });
    const rows = (JSON.parse(content) as LabelExportRow[]).filter((r) => r.pos === 1);
    expect(rows.map((r) => [r.annotator, r.tactic, r.revision, r.ms_spent])).toEqual([
      ['ann', 'Other', 2, 200],
      ['bo', 'Multi-intent', 1, 100],
    ]);
    // Two windows that both opened the unlabelled item: the second write is refused, clearly.
    await engine.handlers['labels/put']({ queueId: 'T1', pos: 2, annotator: 'bo', value: 'Other', msSpent: 10, baseRevision: 0 });
    await expect(
      engine.handlers['labels/put']({ queueId: 'T1', pos: 2, annotator: 'bo', value: 'Direct intent', msSpent: 10, baseRevision: 0 }),
    ).rejects.toThrow(/changed since it was opened/);
  });

  it('refuses bad input with the field named', async () => {
    await expect(engine.handlers['labels/put']({ queueId: 'T1', pos: -1, annotator: 'ann', value: 'Other', msSpent: 1 })).rejects.toThrow(
      /labels\/put: .*\(field "pos"\)/,
    );
    await expect(engine.handlers['labels/put']({ queueId: 'T1', pos: 3, annotator: 'ann', value: 'Sarcasm', msSpent: 1 })).rejects.toThrow(
      /"Sarcasm" is not one of its labels/,
    );
    await expect(engine.handlers['labels/put']({ queueId: 'T1', pos: 3, annotator: 'nobody', value: 'Other', msSpent: 1 })).rejects.toThrow(
      /no annotator "nobody"/,
    );
    await expect(engine.handlers['labels/create-queue']({ kind: 'tactic', labels: ['a', 'a'] })).rejects.toThrow(/labels must be distinct.*\(field "labels"\)/);
    await expect(engine.handlers['labels/create-queue']({ kind: 'tactic', labels: 'abcdefghij'.split('') })).rejects.toThrow(/at most nine labels/);
    await expect(engine.handlers['labels/create-queue']({ kind: 'audit', matchIds: ['M9'] })).rejects.toThrow(/no match "M9"/);
    await expect(engine.handlers['labels/tactic-report']({ queueId: 'T9' })).rejects.toThrow(/no labelling queue "T9"/);
  });

  it('reports κ from the stored labels, the Table 5 shares and the classifier', async () => {
    const L = ['Direct intent', 'Vague/indirect', 'Other'];
    const a = [0, 0, 1, 2, 1, 0, 2, 2, 0, 1];
    const b = [0, 1, 1, 2, 1, 0, 0, 2, 0, 1];
    for (let pos = 3; pos < 13; pos++) {
      await engine.handlers['labels/put']({ queueId: 'T1', pos, annotator: 'ann', value: L[a[pos - 3]!]!, msSpent: 500 });
      await engine.handlers['labels/put']({ queueId: 'T1', pos, annotator: 'bo', value: L[b[pos - 3]!]!, msSpent: 500 });
    }
    const r = await engine.handlers['labels/tactic-report']({ queueId: 'T1' });
    const labels = (who: string) => r.items.map((i) => i.byAnnotator[who] ?? null);
    expect(r.agreement.pairs[0]).toMatchObject({ a: 'ann', b: 'bo', n: 11 });
    expect(r.agreement.pairs[0]!.value).toBeCloseTo(cohenKappa(labels('ann'), labels('bo')), 12);
    for (const m of r.perMatch) expect(Object.values(m.shares).reduce((s, x) => s + x, 0)).toBeCloseTo(1, 9);
    expect(r.items.every((i) => r.labels.includes(i.auto) || i.auto === 'Contextual camouflage')).toBe(true);
    expect(r.auto.perAnnotator.map((p) => p.n)).toEqual([12, 12]);
  });

  it("undoes the annotator's latest label", async () => {
    expect(await engine.handlers['labels/undo']({ queueId: 'T1', annotator: 'bo' })).toEqual({ pos: 12 });
    expect((await engine.handlers['labels/item']({ queueId: 'T1', annotator: 'bo' }))!.pos).toBe(0);
  });
});

describe('judge audit', () => {
  it('scores the judge against the audit and replays the stopping rule per match', async () => {
    const q = await engine.handlers['labels/create-queue']({ kind: 'audit', perMatch: 4, seed: 1 });
    expect(q).toMatchObject({ id: 'A1', kind: 'audit', items: 8, labels: [] });
    const item = (await engine.handlers['labels/item']({ queueId: 'A1', annotator: 'ann' }))!;
    expect(item.turns!.length).toBeGreaterThan(1);
    expect(item.source).toBeNull();
    // Agree with the judge everywhere but flip its resolution on the first item.
    for (let pos = 0; pos < 8; pos++) {
      const v = (await engine.handlers['labels/item']({ queueId: 'A1', annotator: 'ann', pos }))!;
      await engine.handlers['labels/put']({ queueId: 'A1', pos, annotator: 'ann', value: { resolved: true, tier: 3, hallucination: false }, msSpent: 900 });
      const judge = (await engine.handlers['labels/item']({ queueId: 'A1', annotator: 'ann', pos }))!.source!.judge!;
      await engine.handlers['labels/put']({
        queueId: 'A1',
        pos,
        annotator: 'ann',
        value: { resolved: pos === 0 ? !judge.resolved : judge.resolved, tier: judge.tier, hallucination: judge.hallucination },
        msSpent: 100,
        baseRevision: 1,
      });
      expect(v.pos).toBe(pos);
    }
    const r = await engine.handlers['labels/audit-report']({ queueId: 'A1' });
    expect(r.n).toBe(8);
    expect(r.disagreements).toHaveLength(1);
    expect(r.disagreements[0]).toMatchObject({ pos: 0, field: 'resolved' });
    expect(r.perMatch.map((m) => m.matchId)).toEqual(['M1', 'M2']);
    expect(r.perMatch.reduce((s, m) => s + m.audited, 0)).toBe(8);
    for (const m of r.perMatch) expect(m.stopJudge!.t).toBe(r.perMatch.indexOf(m) + 1);
    // Any judge against the same people: the rule judge re-judges the labelled transcripts (the
    // scripted DA's matches: its verdicts equal the stored ones), an unknown SPEC is refused.
    const rule = await engine.handlers['labels/audit-report']({ queueId: 'A1', judge: 'rule' });
    expect(rule.judge).toBe('rule');
    expect(r.judge).toBeUndefined();
    expect(rule.n).toBe(8);
    expect(rule.disagreements).toEqual(r.disagreements);
    await expect(engine.handlers['labels/audit-report']({ queueId: 'A1', judge: 'nope' })).rejects.toThrow(/judge "nope": not "rule" and no LLM endpoint/);
    await expect(engine.handlers['labels/audit-report']({ queueId: 'T1' })).rejects.toThrow(/holds tactic labels/);
    await expect(
      engine.handlers['labels/put']({ queueId: 'A1', pos: 0, annotator: 'ann', value: { resolved: true, tier: 5, hallucination: false } as never, msSpent: 1 }),
    ).rejects.toThrow(/expected a tactic label \(text\), an audit verdict \{resolved, tier: 1–4.*\(field "value"\)/);
  });
});

describe('labels/export', () => {
  it('writes every label with annotator, time spent and item ids, as JSON and as CSV that parse back alike', async () => {
    const json = JSON.parse((await engine.handlers['labels/export']({ format: 'json' })).content) as LabelExportRow[];
    const { filename, content } = await engine.handlers['labels/export']({ format: 'csv' });
    expect(filename).toBe('sparring-labels-all.csv');
    const csv = parseCsv<Record<string, string>>(content, { columns: true });
    expect(csv).toHaveLength(json.length);
    expect(json.length).toBeGreaterThan(30);
    for (const [i, row] of json.entries()) {
      expect(csv[i]!.item_id).toBe(row.item_id);
      expect(csv[i]!.annotator).toBe(row.annotator);
      expect(Number(csv[i]!.ms_spent)).toBe(row.ms_spent);
      expect(row.item_id).toBe(`${row.queue_id}/${row.pos}`);
      expect(row.episode_id.startsWith(`${row.match_id}:`)).toBe(true);
    }
    expect(json.find((r) => r.queue_id === 'A1')).toMatchObject({ kind: 'audit', tactic: null, tier: expect.any(Number) });
  });
});
