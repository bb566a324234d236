/**
 * `sparring run --preset quick` end to end, and `--resume` after a `kill -9` in the middle of an
 * isolation gym: the resumed run ends with the same result as an uninterrupted one, and the lab
 * holds every match's episodes exactly once. The uninterrupted run and the one killed are child
 * processes running side by side; the resume and the refusals run the same commander program
 * in-process (test/support/cli-in-process.ts).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../core/presets';
import { bankingDomain } from '../host/domain-files';
import { corpusHash } from '../host/store/corpus-store';
import { sparringInProcess } from './support/cli-in-process';

const run = promisify(execFile);
const BIN = path.resolve(__dirname, '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-run-'));

interface RunJson {
  runId: string;
  status: string;
  matches: {
    index: number;
    da: string;
    ca: string;
    wDa: number;
    trained: string | null;
    stop: string | null;
    verdict: string;
    tactics: Record<string, number>;
  }[];
  gyms: { role: string; from: string; to: string }[];
  checkpoints: { name: string; role: string; parent: string | null }[];
  heldout: { da: string; ca: string; heldout: Record<string, unknown>; reference?: { ca: string; heldout: Record<string, unknown> } }[];
  settings: { grpo: { phase: string; steps: number; temperature: number }[] } | null;
}

async function sparringJson(args: string[]): Promise<RunJson> {
  const { stdout } = await run(process.execPath, [BIN, ...args, '--json'], { maxBuffer: 1 << 24 });
  return JSON.parse(stdout) as RunJson;
}

/**
 * The quick preset with gyms long enough (40 steps) that a kill lands inside one on any machine:
 * a few-step gym can finish within one 250 ms progress report, so no report of a step before the
 * last arrives to trigger the kill. At most 3 matches of 3 episodes per scenario, as the quick
 * preset was before issue 52 made it longer (5 matches of 6).
 */
function longGymConfig(): string {
  const c = structuredClone(PRESETS.smoke.config);
  c.gym.da.steps = 40;
  c.gym.ca.steps = 40;
  c.stopping.nMax = 3;
  c.arena.episodesPerScenario = 3;
  const file = path.join(tmp, 'quick-long-gyms.json');
  writeFileSync(file, JSON.stringify(c));
  return file;
}

/** The quick preset at its smallest (2 matches, 2 episodes per scenario, 2-step gyms), as a config file. */
function tinyConfig(): string {
  const c = structuredClone(PRESETS.smoke.config);
  Object.assign(c.stopping, { nMax: 2, nMin: Math.min(c.stopping.nMin, 2) });
  c.arena.episodesPerScenario = 2;
  for (const step of [c.bootstrap.daWarmup, c.bootstrap.caPressure, c.gym.da, c.gym.ca]) step.steps = 2;
  const config = path.join(tmp, 'tiny.json');
  writeFileSync(config, JSON.stringify(c));
  return config;
}

/** Start a run and SIGKILL it as soon as an isolation gym reports a step before its last. */
function killDuringGym(db: string, config: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'run', '--config', config, '--db', db], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const steps = [...err.matchAll(/gym: (?:DA\d → DA\d|CA\d → CA\d) .*: (\d+)\/(\d+)\n/g)];
      if (steps.some((m) => Number(m[1]) < Number(m[2]))) child.kill('SIGKILL');
    });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve(err) : reject(new Error(`run ended (${code}) before a gym: ${err}`))));
  });
}

describe('sparring run', () => {
  it('quick preset (40-step gyms): the loop invariants hold, and --resume after kill -9 mid-gym gives the same result', async () => {
    const config = longGymConfig();
    const db = path.join(tmp, 'b.db');
    // The same run twice at once: uninterrupted, and killed mid-gym (then resumed below).
    const [a, killed] = await Promise.all([sparringJson(['run', '--config', config, '--db', path.join(tmp, 'a.db')]), killDuringGym(db, config)]);
    expect(a.status).toBe('finished');

    // Invariants: the stopping rule's decision is consistent with the stored W_DA values.
    const wDa = a.matches.map((m) => m.wDa);
    a.matches.forEach((m, i) => {
      const stopped = m.stop !== null;
      expect(stopped).toBe(i === a.matches.length - 1);
      if (i < a.matches.length - 1) {
        // the weaker agent (further below its floor) trained after this match
        const daShort = 0.6 - wDa[i]!;
        const caShort = 0.35 - (1 - wDa[i]!);
        expect(m.trained).toBe(daShort >= caShort ? 'DA' : 'CA');
      }
    });
    expect(a.matches.length).toBeLessThanOrEqual(3); // n_max = 3
    // The settings it ran with, as resolved from its config: the 40-step gyms, T = 1 by default.
    expect(a.settings!.grpo.find((g) => g.phase === 'DA gym')).toMatchObject({ steps: 40, temperature: 1 });
    // Checkpoints chain: each gym's checkpoint has the previous one of its role as parent,
    // and the next match uses it.
    expect(a.gyms.length).toBe(a.matches.length - 1);
    a.gyms.forEach((g, i) => {
      expect(g.role).toBe(a.matches[i]!.trained);
      const cp = a.checkpoints.find((c) => c.name === g.to)!;
      expect(cp.parent).toBe(g.from);
      const next = a.matches[i + 1]!;
      expect(g.role === 'DA' ? next.da : next.ca).toBe(g.to);
    });
    expect(a.heldout.map((h) => h.da)).toEqual([...new Set(['DA0', ...a.gyms.filter((g) => g.role === 'DA').map((g) => g.to)])]);
    for (const m of a.matches) expect(m.tactics.n).toBe(30);
    // Every DA checkpoint is also evaluated against the scripted CA, a fixed opponent.
    for (const h of a.heldout) expect(h.reference).toMatchObject({ ca: 'scripted', heldout: { episodes: h.heldout.episodes } });

    // The run killed mid-gym, resumed.
    expect(killed).not.toMatch(/held-out evaluation/); // killed inside the loop, not after it
    const resumed = await sparringInProcess(['run', '--resume', 'R1', '--db', db, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const b = JSON.parse(resumed.stdout) as RunJson;
    expect(b.status).toBe('finished');
    expect(b.matches).toEqual(a.matches);
    expect(b.gyms).toEqual(a.gyms);
    expect(b.checkpoints).toEqual(a.checkpoints);
    expect(b.heldout).toEqual(a.heldout);

    const sql = new Database(db, { readonly: true });
    const perMatch = sql.prepare("SELECT match_id, COUNT(*) AS n FROM episodes WHERE match_id LIKE 'R1-M%' GROUP BY match_id").all() as { n: number }[];
    expect(perMatch.length).toBe(b.matches.length);
    for (const r of perMatch) expect(r.n).toBe(30);
    sql.close();
  }, 240_000);

  it('--arena-only plays and stores the held-out evaluation but prints none of it, and marks the run: report R leaves it out, report R --heldout shows it', async () => {
    const config = tinyConfig();
    const db = path.join(tmp, 'arena-only.db');
    const text = await sparringInProcess(['run', '--config', config, '--arena-only', '--db', db]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('W_DA');
    expect(text.stdout).toContain(
      'held-out evaluation: played and stored, not shown (an arena-only run, for choosing settings on the arena); `sparring report R1 --heldout --out FILE` shows it',
    );
    expect(text.stdout).not.toMatch(/held-out evaluation \(12 scenarios|against the scripted CA|routing/);
    const stored = new Database(db, { readonly: true });
    expect(stored.prepare("SELECT arena_only FROM runs WHERE id = 'R1'").pluck().get()).toBe(1);
    const snapshot = JSON.parse(stored.prepare("SELECT snapshot_json FROM runs WHERE id = 'R1'").pluck().get() as string) as {
      context: { evaluation: { checkpoints: unknown[] } };
    };
    stored.close();
    expect(snapshot.context.evaluation.checkpoints.length).toBeGreaterThan(0);
    const [hidden, shown] = [path.join(tmp, 'arena-only.html'), path.join(tmp, 'all.html')];
    expect((await sparringInProcess(['report', 'R1', '--out', hidden, '--db', db])).code).toBe(0);
    const asked = await sparringInProcess(['report', 'R1', '--heldout', '--out', shown, '--db', db]);
    expect(asked.code).toBe(0);
    expect(asked.stderr).toContain('run R1 was made arena-only, for choosing settings on the arena; --heldout shows its held-out and panel figures');
    expect(readFileSync(hidden, 'utf8')).toContain('data-testid="heldout-left-out"');
    expect(readFileSync(hidden, 'utf8')).not.toContain("Against the run's latest CA");
    expect(readFileSync(shown, 'utf8')).toContain("Against the run's latest CA");
    expect(readFileSync(shown, 'utf8')).not.toContain('heldout-left-out');
  }, 120_000);

  it("--corpus: DA0's SFT adds the rows of the lab's imported corpus, named in the config by their hash; a corpus the lab lacks is refused before a run exists", async () => {
    const db = path.join(tmp, 'corpus.db');
    const bankSentence = bankingDomain().bank.utterances.find((u) => !u.text.includes('{'))!;
    const intents = ['card_arrival', 'pin_blocked', 'exchange_via_app', 'edit_personal_details', 'verify_my_identity'];
    const rows = [
      ...Array.from({ length: 149 }, (_, i) => ({ text: `corpus sentence number ${i} about what I need`, intent: intents[i % intents.length]! })),
      { text: bankSentence.text, intent: bankSentence.intent },
    ];
    const csv = path.join(tmp, 'corpus.csv');
    writeFileSync(csv, ['text,category', ...rows.map((r) => `"${r.text.replaceAll('"', '""')}",${r.intent}`)].join('\n') + '\n');
    const hash = corpusHash(rows);
    const imported = await sparringInProcess(['import-banking77', csv, '--db', db, '--create']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(`stored as import 1 in ${db} (content hash ${hash})`);

    const unknown = await sparringInProcess(['run', '--config', tinyConfig(), '--corpus', 'clinc150', '--db', db]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`--corpus clinc150: no such corpus import in ${db} (it holds import 1, banking77, 150 rows;`);
    const lacking = path.join(tmp, 'lacking.json');
    writeFileSync(lacking, JSON.stringify({ bootstrap: { sft: { corpus: `sha256:${'0'.repeat(64)}` } } }));
    const refused = await sparringInProcess(['run', '--preset', 'quick', '--config', lacking, '--db', db]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`field bootstrap.sft.corpus: this lab holds no imported corpus whose rows hash to sha256:${'0'.repeat(64)}`);

    expect((await sparringInProcess(['run', '--config', tinyConfig(), '--db', db])).code).toBe(0);
    const withCorpus = await sparringInProcess(['run', '--config', tinyConfig(), '--corpus', 'banking77', '--db', db]);
    expect(withCorpus.code, withCorpus.stderr).toBe(0);
    const stored = new Database(db, { readonly: true });
    try {
      // Only the two runs exist: the refusals made none.
      expect(stored.prepare('SELECT id FROM runs ORDER BY id').pluck().all()).toEqual(['R1', 'R2']);
      const configOf = (id: string) =>
        JSON.parse(stored.prepare('SELECT config_json FROM runs WHERE id = ?').pluck().get(id) as string) as typeof PRESETS.quick.config;
      expect(configOf('R1').bootstrap.sft.corpus).toBeUndefined();
      expect(configOf('R2').bootstrap.sft.corpus).toBe(hash);
      const dataOf = (run: string) =>
        JSON.parse(
          stored.prepare("SELECT training_data_json FROM checkpoints WHERE run_id = ? AND generation = 0 AND role = 'DA'").pluck().get(run) as string,
        ) as unknown[];
      expect(dataOf('R1')).not.toContainEqual(expect.objectContaining({ kind: 'corpus' }));
      expect(dataOf('R2')).toContainEqual({ kind: 'corpus', id: hash });
      // 149 more demonstrations (the row that repeats a bank sentence left out): 2 or 3 more minibatches of 64 per SFT epoch.
      const sftSteps = (run: string) =>
        stored.prepare("SELECT MAX(step) FROM run_metrics WHERE run_id = ? AND phase = 'bootstrap:DA0-sft'").pluck().get(run) as number;
      const epochs = configOf('R2').bootstrap.sft.epochs;
      expect(sftSteps('R2') - sftSteps('R1')).toBeGreaterThanOrEqual(2 * epochs);
      expect(sftSteps('R2') - sftSteps('R1')).toBeLessThanOrEqual(3 * epochs);
    } finally {
      stored.close();
    }
  }, 120_000);

  it('rejects a bad config naming the field, and a resume of an unknown run', async () => {
    const bad = path.join(tmp, 'bad.json');
    writeFileSync(bad, JSON.stringify({ arena: { episodesPerScenario: 0 } }));
    const r = await sparringInProcess(['run', '--config', bad, '--db', path.join(tmp, 'c.db')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/field arena\.episodesPerScenario/);
    const u = await sparringInProcess(['run', '--resume', 'R9', '--db', path.join(tmp, 'c.db')]);
    expect(u.stderr).toMatch(/no run "R9"/);
  });
});
