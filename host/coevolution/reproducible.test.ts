/**
 * A run's numbers depend on its seed and config only, never on what else the lab holds (issue 18,
 * item 4): the same seed and config in a fresh lab and in a lab that already holds a run, an
 * ad-hoc match and an imported corpus store the same metric series, matches, episodes (rewards
 * and text) and held-out evaluation. Ids and checkpoint names differ between the labs (R1 vs R2,
 * DA0 vs DA1), so both are rewritten to run-relative names before comparing.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runMatch } from '../../core/arena/match';
import { selectScenarios } from '../../core/arena/scenarios';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import { RUN_THREADS } from '../../core/coevolution/run-config';
import { PRESETS } from '../../core/presets';
import { DEFAULT_CONFIG, withEpisodes } from '../../core/config';
import { judgeEpisode } from '../../core/judge/judge';
import { saveCorpusImport } from '../store/corpus-store';
import { labDomain } from '../store/scenario-store';
import { openSqliteStore } from '../store/sqlite-store';
import { checkpointStore } from '../store/checkpoint-store';
import type { SessionSettings } from '../../models/session';
import { PolicyCache } from './actors';
import { createRunService } from './service';

/** smoke with one SFT epoch (DA0's SFT is most of a smoke run's time; no check here reads its size). */
const SMOKE = { ...PRESETS.smoke.config, bootstrap: { ...PRESETS.smoke.config.bootstrap, sft: { ...PRESETS.smoke.config.bootstrap.sft, epochs: 1 } } };
/** That with two matches (one gym): enough for a gym's seed to show in what the run stores. */
const CONFIG = JSON.stringify({ ...SMOKE, stopping: { ...SMOKE.stopping, nMin: 2, nMax: 2 } });

async function runOnce(dbPath: string, seed: number, session?: SessionSettings, configJson = CONFIG, bootstrapScope?: string): Promise<string> {
  const service = createRunService({ dbPath, ...(session ? { session } : {}), ...(bootstrapScope !== undefined ? { bootstrapScope } : {}) });
  try {
    const { runId } = await service.start({ preset: 'custom', configJson, seed });
    const d = await service.settled(runId);
    expect(d.status, d.error ?? '').toBe('finished');
    return runId;
  } finally {
    await service.close();
  }
}

/**
 * The reference run: seed 1 and CONFIG in a fresh lab (R1), made once for the file and read by the
 * tests that compare with it or replay its matches (the replay test adds to that lab, and runs last).
 */
let reference: Promise<string> | undefined;
function referenceLab(): Promise<string> {
  reference ??= (async () => {
    const lab = path.join(mkdtempSync(path.join(os.tmpdir(), 'sparring-repro-ref-')), 'fresh.db');
    expect(await runOnce(lab, 1)).toBe('R1');
    return lab;
  })();
  return reference;
}

/** `read` on the lab file opened read-only (closed afterwards). */
function readLab<T>(dbPath: string, read: (db: Database.Database) => T): T {
  const db = new Database(dbPath, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** Every number and text the lab stores for a run, with the run's ids and checkpoint names made run-relative. */
function stored(dbPath: string, runId: string): unknown {
  const db = new Database(dbPath, { readonly: true });
  try {
    const names = new Map<string, string>([[runId, 'RUN']]);
    const perRole = { DA: 0, CA: 0 };
    for (const c of db.prepare('SELECT name, role FROM checkpoints WHERE run_id = ? ORDER BY created_at, rowid').all(runId) as {
      name: string;
      role: 'DA' | 'CA';
    }[]) {
      names.set(c.name, `${c.role}#${perRole[c.role]++}`);
    }
    // Bootstrap metric phases are fixed labels ('bootstrap:DA0-sft'), not checkpoint names.
    const rename = (s: string) => (s.startsWith('bootstrap:') ? s : s.replace(/\b(R\d+|DA\d+|CA\d+)\b/g, (m) => names.get(m) ?? m));
    const relative = (v: unknown): unknown =>
      typeof v === 'string'
        ? rename(v)
        : Array.isArray(v)
          ? v.map(relative)
          : v && typeof v === 'object'
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, relative(x)]))
            : v;
    const all = (sql: string) => db.prepare(sql).all(runId);
    const run = db.prepare('SELECT seed, config_json, snapshot_json FROM runs WHERE id = ?').get(runId) as {
      seed: number;
      config_json: string;
      snapshot_json: string;
    };
    const snapshot = JSON.parse(run.snapshot_json) as { value: string; context: { matches: unknown; gyms: unknown; evaluation: unknown } };
    const mine = `(SELECT id FROM matches WHERE id LIKE '${runId}-%')`;
    return relative({
      seed: run.seed,
      config: run.config_json,
      phase: snapshot.value,
      matchSummaries: snapshot.context.matches,
      gyms: snapshot.context.gyms,
      evaluation: snapshot.context.evaluation,
      metrics: all('SELECT phase, key, step, value FROM run_metrics WHERE run_id = ? ORDER BY phase, key, step'),
      matches: db
        .prepare(
          `SELECT id, seed, da_spec, ca_spec, da_checkpoint_id, da_checkpoint_name, ca_checkpoint_id, ca_checkpoint_name, scenario_set, episodes_per_scenario, w_da, fraud_rate, config_json FROM matches WHERE id IN ${mine} ORDER BY id`,
        )
        .all(),
      perScenario: db.prepare(`SELECT * FROM match_scenarios WHERE match_id IN ${mine} ORDER BY match_id, pos`).all(),
      episodes: db.prepare(`SELECT * FROM episodes WHERE match_id IN ${mine} ORDER BY id`).all(),
      turns: db.prepare(`SELECT * FROM turns WHERE episode_id IN (SELECT id FROM episodes WHERE match_id IN ${mine}) ORDER BY episode_id, idx`).all(),
      rewards: db
        .prepare(`SELECT * FROM turn_rewards WHERE episode_id IN (SELECT id FROM episodes WHERE match_id IN ${mine}) ORDER BY episode_id, turn_idx, term`)
        .all(),
      checkpoints: (
        all(
          'SELECT name, role, generation, step, source, model_json, weights, metrics_json, training_data_json, note FROM checkpoints WHERE run_id = ? ORDER BY created_at, rowid',
        ) as { weights: Buffer }[]
      ).map((c) => ({ ...c, weights: createHash('sha256').update(c.weights).digest('hex') })),
    });
  } finally {
    db.close();
  }
}

/** Fill a lab with what a lab in use holds: an imported corpus, a run of another seed, and an ad-hoc match between its checkpoints. */
async function busyLab(dbPath: string): Promise<void> {
  const store = openSqliteStore(dbPath);
  saveCorpusImport(
    store.db,
    'banking77',
    'train.csv',
    [
      { line: 2, text: 'I still have not received my new card', intent: 'card_arrival' },
      { line: 3, text: 'my card payment was declined', intent: 'declined_card_payment' },
    ],
    0,
  );
  store.close();
  await runOnce(dbPath, 2);
  const lab = openSqliteStore(dbPath);
  const domain = labDomain(lab.db);
  const cache = new PolicyCache({ checkpoints: checkpointStore(lab.db), domain });
  try {
    const r = await runMatch({
      matchId: 'M1',
      createdAt: new Date().toISOString(),
      domain,
      scenarios: selectScenarios(domain, 'arena'),
      scenarioSet: 'arena',
      da: await cache.da('latest'),
      ca: new ScriptedCa(domain),
      judge: judgeEpisode,
      config: withEpisodes(DEFAULT_CONFIG, 1),
      seed: 1,
      concurrency: 8,
    });
    lab.saveMatch(r.match, r.episodes);
  } finally {
    await cache.dispose();
    lab.close();
  }
}

describe('same seed, same numbers', () => {
  it('a run in a lab that already holds a run, a match and a corpus stores exactly what the same run stores in a fresh lab', { timeout: 300_000 }, async () => {
    const busy = path.join(mkdtempSync(path.join(os.tmpdir(), 'sparring-repro-')), 'busy.db');
    const fresh = await referenceLab();
    const a = 'R1';
    await busyLab(busy);
    const b = await runOnce(busy, 1);
    expect(a).toBe('R1');
    expect(b).toBe('R2');
    const want = stored(fresh, a) as Record<string, unknown[]>;
    const got = stored(busy, b) as Record<string, unknown[]>;
    // Not vacuous: the run trained in a gym and stored episodes and metric points.
    expect(want.gyms!.length).toBeGreaterThan(0);
    expect(want.episodes!.length).toBeGreaterThan(0);
    expect(want.metrics!.length).toBeGreaterThan(0);
    for (const part of Object.keys(want)) expect(got[part], part).toEqual(want[part]);
    expect(Object.keys(got)).toEqual(Object.keys(want));
  });

  it(
    "a run whose host asks for 2 onnxruntime threads (the app, a study of one worker) stores exactly what the default stores: the count is the config's",
    { timeout: 300_000 },
    async () => {
      const two = path.join(mkdtempSync(path.join(os.tmpdir(), 'sparring-repro-threads-')), 'two.db');
      // The default's run is the reference run (seed 1, CONFIG, a fresh lab).
      const one = await referenceLab();
      const a = 'R1';
      const b = await runOnce(two, 1, { intraOpNumThreads: 2 });
      const device = (p: string) =>
        readLab(p, (db) => JSON.parse(db.prepare("SELECT device_json FROM runs WHERE id = 'R1'").pluck().get() as string) as { threads: number | null });
      expect(device(one).threads).toBe(RUN_THREADS);
      expect(device(two).threads).toBe(RUN_THREADS);
      expect(stored(two, b)).toEqual(stored(one, a));
    },
  );

  it(
    "a run whose bootstrap inputs and scope equal an earlier run's copies its DA0 and CA0 and stores exactly what it stores when it trains them; outside the scope it trains its own",
    { timeout: 300_000 },
    async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'sparring-repro-bootstrap-'));
      const shared = path.join(dir, 'shared.db');
      const fresh = path.join(dir, 'fresh.db');
      // Another stopping rule (three matches): the bootstrap does not read it, so the key is the same.
      const longer = JSON.stringify({ ...SMOKE, stopping: { ...SMOKE.stopping, nMin: 3, nMax: 3 } });
      await runOnce(shared, 1, undefined, CONFIG, 'study S1');
      const reused = await runOnce(shared, 1, undefined, longer, 'study S1');
      // A plain run (no scope) shares nothing.
      const plain = await runOnce(shared, 1, undefined, longer);
      const trained = await runOnce(fresh, 1, undefined, longer, 'study S1');
      const notes = (p: string, runId: string) =>
        readLab(
          p,
          (db) =>
            db.prepare("SELECT name, note FROM checkpoints WHERE run_id = ? AND source = 'bootstrap' ORDER BY rowid").all(runId) as {
              name: string;
              note: string | null;
            }[],
        );
      expect(notes(shared, reused)).toEqual([
        { name: expect.stringMatching(/^DA[1-9]/), note: 'the bootstrap of run R1 (DA0), reused: same seed and bootstrap inputs' },
        { name: expect.stringMatching(/^CA[1-9]/), note: 'the bootstrap of run R1 (CA0), reused: same seed and bootstrap inputs' },
      ]);
      expect(notes(shared, plain).map((c) => c.note)).toEqual([null, null]);
      expect(notes(fresh, trained)).toEqual([
        { name: 'DA0', note: null },
        { name: 'CA0', note: null },
      ]);
      const withoutNotes = (v: unknown) => {
        const r = v as { checkpoints: { note: string | null }[] };
        return { ...r, checkpoints: r.checkpoints.map((c) => ({ ...c, note: null })) };
      };
      const want = withoutNotes(stored(fresh, trained));
      expect(want.checkpoints.length).toBeGreaterThan(2);
      expect(withoutNotes(stored(shared, reused))).toEqual(want);
    },
  );

  it(
    "`sparring match --run` replays a run's match from its stored seed, episode for episode; without --run the CA speaks the whole bank",
    { timeout: 300_000 },
    async () => {
      const lab = await referenceLab();
      const runId = 'R1';
      const last = readLab(
        lab,
        (db) =>
          db
            .prepare('SELECT id, seed, da_checkpoint_name AS da, ca_checkpoint_name AS ca FROM matches WHERE id LIKE ? ORDER BY seq DESC')
            .get(`${runId}-M%`) as {
            id: string;
            seed: number;
            da: string;
            ca: string;
          },
      );
      const bin = path.resolve(__dirname, '..', '..', 'bin', 'sparring.js');
      const replay = (...extra: string[]) => {
        const r = spawnSync(process.execPath, [bin, '--db', lab, '--seed', String(last.seed), '--json', 'match', '--da', last.da, '--ca', last.ca, ...extra], {
          encoding: 'utf8',
        });
        expect(r.status, r.stderr).toBe(0);
        return (JSON.parse(r.stdout) as { matchId: string }).matchId;
      };
      // What an episode is, without its ids: outcome, rewards and every turn's text and tool.
      const played = (matchId: string) =>
        readLab(lab, (db) =>
          (
            db.prepare('SELECT id, scenario_id, seed, winner, routed_tool, r_da, r_ca FROM episodes WHERE match_id = ? ORDER BY idx').all(matchId) as {
              id: string;
            }[]
          ).map(({ id, ...e }) => ({
            ...e,
            turns: db.prepare('SELECT role, text, tool, tool_args_json FROM turns WHERE episode_id = ? ORDER BY idx').all(id),
          })),
        );
      const want = played(last.id);
      expect(want.length).toBeGreaterThan(0);
      expect(played(replay('--run', runId))).toEqual(want);
      expect(played(replay('--episodes', String(PRESETS.smoke.config.arena.episodesPerScenario)))).not.toEqual(want);
      const unknown = spawnSync(process.execPath, [bin, '--db', lab, 'match', '--run', 'R9'], { encoding: 'utf8' });
      expect(unknown.status).not.toBe(0);
      expect(unknown.stderr).toMatch(/match --run: no run R9 in /);
      const cli = (...args: string[]) => spawnSync(process.execPath, [bin, '--db', lab, ...args], { encoding: 'utf8' });
      expect(cli('match', '--run', runId, '--speak', 'validation').stderr).toMatch(
        /the run keeps no validation slice \(its config has no validation.bankShare\)/,
      );
      expect(cli('match', '--speak', 'train').stderr).toMatch(/match --speak: needs --run/);
      // A run that keeps a validation slice out of everything it trains on; its CA speaks it on request.
      const kept = await runOnce(lab, 2, undefined, JSON.stringify({ ...JSON.parse(CONFIG), validation: { bankShare: 0.2 } }));
      const ckpt = (role: string) =>
        readLab(
          lab,
          (db) => (db.prepare('SELECT name FROM checkpoints WHERE run_id = ? AND role = ? ORDER BY rowid DESC').get(kept, role) as { name: string }).name,
        );
      const speak = (slice: string) => {
        const r = cli('--seed', '5', '--json', 'match', '--run', kept, '--da', ckpt('DA'), '--ca', ckpt('CA'), '--speak', slice);
        expect(r.status, r.stderr).toBe(0);
        return played((JSON.parse(r.stdout) as { matchId: string }).matchId).map((e) => e.turns);
      };
      expect(speak('validation')).not.toEqual(speak('train'));
    },
  );
});
