/**
 * `sparring lab merge` on two labs made by real work: tiny co-evolution runs and a study, an arena
 * match labelled by the same annotator in both labs (differently), and a human-played episode in
 * each. Merged both ways: every row comes in (ids taken renamed: R1, DA0…, H1), every reference
 * resolves (foreign keys, integrity, the plan's references and the runs' snapshots), the study's
 * tables read the same in the merged lab, a second merge adds nothing, the annotator's two labels
 * are both kept and the agreement report shows them disagreeing; a dry run changes nothing, a lab
 * of a newer schema is refused by name and one of an older schema merged from a temporary copy.
 */
import { copyFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PlayView } from '../core/contract/contract';
import { createEngine } from '../host/engine/engine';
import type { Engine } from '../host/engine/engine';
import { unavailableRunService } from '../host/engine/runs-unavailable';
import { MERGE_PLAN, mergeLab } from '../host/store/lab-merge';
import type { MergeReport } from '../host/store/lab-merge';
import { LATEST_VERSION, applyMigrations } from '../host/store/migrations';
import { openSqliteStore } from '../host/store/sqlite-store';
import { sparringInProcess as sparring } from './support/cli-in-process';
import { writeTinyStudyConfig } from './support/tiny-study-config';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-lab-merge-'));
const A = path.join(tmp, 'a.db');
const B = path.join(tmp, 'b.db');

const tinyConfig = (): string => writeTinyStudyConfig(tmp);

async function withEngine<T>(db: string, f: (e: Engine) => Promise<T>): Promise<T> {
  const engine = createEngine({ dbPath: db, runService: unavailableRunService() });
  try {
    return await f(engine);
  } finally {
    engine.close();
  }
}

/** A human plays the customer seat of a whole episode against the scripted DA. */
async function playHuman(db: string, player: string, seed: number): Promise<string> {
  return withEngine(db, async (engine) => {
    let v: PlayView = await engine.handlers['play/start']({ seat: 'customer', player, opponent: 'scripted', scenarioId: 'dispute-unrecognized', seed });
    const lines = [`Hi, there is a charge from ${v.customer!.facts.merchant} I do not recognise`, 'Yes, please go ahead', 'Thanks'];
    for (let i = 0; v.status === 'playing'; i++)
      v = await engine.handlers['play/act']({ sessionId: v.sessionId, action: { kind: 'say', text: lines[Math.min(i, lines.length - 1)]! } });
    return v.episode!.id;
  });
}

function counts(db: string): Record<string, number> {
  const lab = new Database(db, { readonly: true });
  try {
    return Object.fromEntries(
      [...MERGE_PLAN.map((p) => p.table), 'lab_merges'].map((t) => [t, lab.prepare(`SELECT COUNT(*) FROM ${t}`).pluck().get() as number]),
    );
  } finally {
    lab.close();
  }
}

/** Foreign keys, integrity, and every reference of the plan (with or without a foreign key) resolves; snapshots name stored rows. */
function referencesResolve(db: string): void {
  const lab = new Database(db, { readonly: true });
  try {
    expect(lab.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(lab.pragma('foreign_key_check')).toEqual([]);
    const keyOf = (t: string) => MERGE_PLAN.find((p) => p.table === t)!.key.cols[0]!;
    for (const p of MERGE_PLAN)
      for (const r of p.refs) {
        if (r.mode !== 'key' || r.loose || r.to.length !== 1) continue;
        const t = r.to[0]!;
        const dangling = lab
          .prepare(
            `SELECT COUNT(*) FROM ${p.table} x WHERE x."${r.col}" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${t} y WHERE y."${keyOf(t)}" = x."${r.col}")`,
          )
          .pluck()
          .get() as number;
        expect(dangling, `${p.table}.${r.col} → ${t}`).toBe(0);
      }
    // What a match's SPEC and a run's snapshot name is stored: the JSON and the SPECs followed the renames.
    const checkpoints = new Set(lab.prepare('SELECT name FROM checkpoints').pluck().all() as string[]);
    const matches = new Set(lab.prepare('SELECT id FROM matches').pluck().all() as string[]);
    for (const m of lab.prepare("SELECT id, da_spec, ca_spec FROM matches WHERE id LIKE 'R%'").all() as { id: string; da_spec: string; ca_spec: string }[]) {
      expect(checkpoints.has(m.da_spec), `${m.id} DA ${m.da_spec}`).toBe(true);
      expect(checkpoints.has(m.ca_spec), `${m.id} CA ${m.ca_spec}`).toBe(true);
    }
    for (const r of lab.prepare('SELECT id, snapshot_json FROM runs WHERE snapshot_json IS NOT NULL').all() as { id: string; snapshot_json: string }[]) {
      const snap = JSON.parse(r.snapshot_json) as {
        context: { runId: string; da: string; ca: string; matches: { matchId: string; da: string; ca: string }[] };
      };
      expect(snap.context.runId).toBe(r.id);
      expect(checkpoints.has(snap.context.da) && checkpoints.has(snap.context.ca), `${r.id}'s final DA and CA`).toBe(true);
      for (const m of snap.context.matches) {
        expect(matches.has(m.matchId), `${r.id} match ${m.matchId}`).toBe(true);
        expect(m.matchId.startsWith(`${r.id}-`)).toBe(true);
        expect(checkpoints.has(m.da) && checkpoints.has(m.ca)).toBe(true);
      }
      const cps = lab.prepare('SELECT COUNT(*) FROM checkpoints WHERE run_id = ?').pluck().get(r.id) as number;
      expect(cps, `${r.id}'s checkpoints`).toBeGreaterThanOrEqual(2);
    }
  } finally {
    lab.close();
  }
}

interface StudyJson {
  runs: { arm: string; seed: number; runId: string; status: string; matches: number }[];
  arms: unknown[];
  paired: unknown[];
}
const studyTables = async (db: string, id: string) => {
  const r = await sparring(['study', 'show', id, '--json', '--db', db]);
  expect(r.code, r.stderr).toBe(0);
  const s = JSON.parse(r.stdout) as StudyJson;
  return { runs: s.runs.map(({ arm, seed, status, matches }) => ({ arm, seed, status, matches })), arms: s.arms, paired: s.paired };
};

let studyB: Awaited<ReturnType<typeof studyTables>>;

beforeAll(async () => {
  const tiny = tinyConfig();
  // A: an arena match labelled by ann, a tiny run, a human episode.
  await withEngine(A, async (e) => {
    await e.handlers['matches/play']({ da: 'scripted', ca: 'scripted', episodesPerScenario: 1, scenarios: 'arena', seed: 1 });
    await e.handlers['labels/add-annotator']({ name: 'ann' });
    await e.handlers['labels/create-queue']({ kind: 'tactic', perMatch: 4 });
    await e.handlers['labels/put']({ queueId: 'T1', pos: 0, annotator: 'ann', value: 'Other', msSpent: 1200 });
    await e.handlers['labels/put']({ queueId: 'T1', pos: 1, annotator: 'ann', value: 'Other', msSpent: 900 });
  });
  // B starts from A's labelled match (an annotator's copy of the team's queue), then ann labels item 0 otherwise there.
  const seed = await sparring(['lab', 'merge', A, '--db', B, '--create']);
  expect(seed.code, seed.stderr).toBe(0);
  await withEngine(B, async (e) => {
    await e.handlers['labels/put']({ queueId: 'T1', pos: 0, annotator: 'ann', value: 'Direct intent', msSpent: 700 });
    await e.handlers['labels/add-annotator']({ name: 'bo' });
    await e.handlers['labels/put']({ queueId: 'T1', pos: 2, annotator: 'bo', value: 'Other', msSpent: 500 });
  });
  const runA = await sparring(['run', '--config', tiny, '--db', A, '--json']);
  expect(runA.code, runA.stderr).toBe(0);
  const study = await sparring(['study', '--config', tiny, '--seeds', '1', '--arms', 'full', '--workers', '1', '--no-panel', '--db', B, '--json']);
  expect(study.code, study.stderr).toBe(0);
  studyB = await studyTables(B, 'S1');
  await playHuman(A, 'Ada', 3);
  await playHuman(B, 'Bo', 4);
}, 180_000);

describe('sparring lab merge', () => {
  it('merges B into A and A into B: every row in, taken ids renamed, every reference resolving, the study unchanged, twice adds nothing', async () => {
    for (const [into, from, name] of [
      [A, B, 'ab'],
      [B, A, 'ba'],
    ] as const) {
      const target = path.join(tmp, `${name}.db`);
      copyFileSync(into, target);
      const before = counts(target);
      const other = counts(from);
      const r = await sparring(['lab', 'merge', from, '--json', '--db', target]);
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as MergeReport;
      const after = counts(target);
      for (const p of MERGE_PLAN) {
        const c = report.tables[p.table]!;
        expect(c.incoming, p.table).toBe(other[p.table]);
        // A disagreeing label comes in under an aliased annotator (ann@b), which is added too.
        const aliases = p.table === 'annotators' ? new Set(report.disagreements.map((d) => d.keptAs)).size : 0;
        expect(c.added + c.present + (p.table === 'labels' ? 0 : c.conflicts), p.table).toBe(c.incoming + aliases);
        expect(after[p.table], p.table).toBe(before[p.table]! + c.added);
      }
      // Each lab's own run is R1 and its checkpoints DA0, CA0…: the other's come in renamed, with their matches and episodes.
      expect(report.renamed).toEqual(expect.arrayContaining([{ table: 'runs', from: 'R1', to: 'R2' }]));
      expect(report.renamed.some((x) => x.table === 'checkpoints' && x.from === 'DA0')).toBe(true);
      expect(report.renamed).toEqual(
        expect.arrayContaining([
          { table: 'matches', from: 'R1-M1', to: 'R2-M1' },
          { table: 'matches', from: 'H1', to: 'H2' },
        ]),
      );
      expect(report.tables.checkpoint_blobs!.present).toBeGreaterThan(0); // the shared bootstrap bytes are stored once
      expect(report.tables.matches!.present).toBe(1); // the labelled arena match both labs hold
      referencesResolve(target);
      // Both human episodes, each with its own match.
      const lab = new Database(target, { readonly: true });
      expect(lab.prepare('SELECT episode_id, player FROM human_episodes ORDER BY episode_id').all()).toEqual(
        name === 'ab'
          ? [
              { episode_id: 'H1:0', player: 'Ada' },
              { episode_id: 'H2:0', player: 'Bo' },
            ]
          : [
              { episode_id: 'H1:0', player: 'Bo' },
              { episode_id: 'H2:0', player: 'Ada' },
            ],
      );
      const studyRun = lab.prepare("SELECT run_id FROM study_runs WHERE study_id = 'S1'").pluck().get() as string;
      lab.close();
      expect(studyRun).toBe(name === 'ab' ? 'R2' : 'R1');
      expect(await studyTables(target, 'S1')).toEqual(studyB);

      // Twice: nothing more.
      const again = await sparring(['lab', 'merge', from, '--json', '--db', target]);
      expect(again.code, again.stderr).toBe(0);
      const second = JSON.parse(again.stdout) as MergeReport;
      for (const [t, c] of Object.entries(second.tables)) expect(c.added, t).toBe(0);
      expect(second.disagreements).toEqual([]);
      const third = counts(target);
      expect({ ...third, lab_merges: 0 }).toEqual({ ...after, lab_merges: 0 });
    }
  }, 120_000);

  it("keeps the same annotator's two labels of one item and the agreement report shows them disagreeing", async () => {
    const target = path.join(tmp, 'labels.db');
    copyFileSync(A, target);
    const r = await sparring(['lab', 'merge', B, '--json', '--db', target]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as MergeReport;
    expect(report.disagreements).toEqual([{ queueId: 'T1', pos: 0, annotator: 'ann', keptAs: 'ann@b', here: '"Other"', theirs: '"Direct intent"' }]);
    expect(r.stderr).toMatch(/1 label disagreement\(s\) kept side by side/);
    const tactic = await withEngine(target, (e) => Promise.resolve(e.handlers['labels/tactic-report']({ queueId: 'T1' })));
    expect(tactic.annotators).toEqual(expect.arrayContaining(['ann', 'ann@b', 'bo']));
    const item0 = tactic.items.find((i) => i.pos === 0)!;
    expect(item0.byAnnotator).toMatchObject({ ann: 'Other', 'ann@b': 'Direct intent' });
    expect(tactic.agreement.pairs.find((p) => [p.a, p.b].sort().join() === 'ann,ann@b')).toBeDefined();
    // The label both labs agree on (item 1) came in once.
    expect(item0).toBeDefined();
    const lab = new Database(target, { readonly: true });
    expect(lab.prepare("SELECT annotator, value_json FROM labels WHERE queue_id = 'T1' AND pos = 1").all()).toEqual([
      { annotator: 'ann', value_json: '"Other"' },
    ]);
    lab.close();
  }, 60_000);

  it('a dry run says what would come in and changes nothing', async () => {
    const target = path.join(tmp, 'dry.db');
    copyFileSync(A, target);
    const before = counts(target);
    const r = await sparring(['lab', 'merge', B, '--dry-run', '--db', target]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^dry run: would merge .*b\.db/);
    expect(r.stdout).toMatch(/runs: \d+ in the other lab, 1 would be added \(1 renamed\)/);
    expect(counts(target)).toEqual(before);
    // The engine's labs/merge (what the app calls): the same report, and still nothing changed.
    const viaEngine = await withEngine(target, (e) => Promise.resolve(e.handlers['labs/merge']({ file: B, dryRun: true })));
    expect(viaEngine).toMatchObject({ dryRun: true, file: B });
    expect(viaEngine.tables.runs).toMatchObject({ incoming: 1, added: 1, renamed: 1 });
    expect(counts(target)).toEqual(before);
    await expect(withEngine(target, (e) => Promise.resolve(e.handlers['labs/merge']({ file: '' })))).rejects.toThrow(/file/);
  }, 60_000);

  it('refuses a lab of a newer schema by name; merges an older one from a temporary copy, leaving the file as it was', async () => {
    const newer = path.join(tmp, 'newer.db');
    copyFileSync(B, newer);
    const n = new Database(newer);
    n.pragma(`user_version = ${LATEST_VERSION + 1}`);
    n.close();
    const target = path.join(tmp, 'target.db');
    copyFileSync(A, target);
    const r = await sparring(['lab', 'merge', newer, '--db', target]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${newer} has schema version ${LATEST_VERSION + 1}, but this version of Sparring only knows up to ${LATEST_VERSION}`);

    // A lab of schema 27 (before lab ids): an annotator with a label-free queue, and a study row.
    const older = path.join(tmp, 'older.db');
    const o = new Database(older);
    applyMigrations(o, 27);
    o.prepare("INSERT INTO annotators (name, created_at) VALUES ('cy', '2026-01-01T00:00:00.000Z')").run();
    o.prepare(
      "INSERT INTO studies (id, created_at, updated_at, preset, base_config_json, arms_json, seeds_json, status) VALUES ('S1', 't', 't', 'quick', '{}', '[]', '[]', 'failed')",
    ).run();
    o.close();
    const store = openSqliteStore(target);
    try {
      const first = mergeLab(store.db, older);
      expect(first.sourceVersion).toBe(27);
      expect(first.tables.annotators!.added).toBe(1);
      expect(first.tables.studies).toMatchObject({ incoming: 1, added: 1, renamed: 0 });
      // Its id comes from its path: merging it again adds nothing.
      const second = mergeLab(store.db, older);
      expect(second.sourceLab).toBe(first.sourceLab);
      for (const [t, c] of Object.entries(second.tables)) expect(c.added, t).toBe(0);
    } finally {
      store.close();
    }
    const still = new Database(older, { readonly: true });
    expect(still.pragma('user_version', { simple: true })).toBe(27);
    still.close();
  }, 60_000);
});
