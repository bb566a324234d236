/**
 * The CLI contract end to end on a temporary lab: the real `sparring` bin in a child process
 * where the process boundary matters (a JSON document on stdout and the exit code of a success,
 * the exit code of a refusal), the same commander program in-process for the rest (each child
 * process costs seconds of node + tsx + onnxruntime start-up; test/support/cli-in-process.ts).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sparringInProcess } from './support/cli-in-process';

const run = promisify(execFile);
const BIN = path.resolve(__dirname, '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-cli-'));

/** `sparring ...args` through bin/sparring.js in a child process. */
async function sparringBin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: { ...process.env, SPARRING_DB: path.join(tmp, 'default.db') } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** `sparring ...args` in this process, with the same SPARRING_DB as sparringBin. */
const sparring = (args: string[]) => sparringInProcess(args, { SPARRING_DB: path.join(tmp, 'default.db') });

describe('sparring match', () => {
  it('prints 10 arena scenarios, W_DA and a separate fraud rate as JSON, stores every episode, and repeats with the seed', async () => {
    const db = path.join(tmp, 'a.db');
    const r = await sparringBin(['match', '--da', 'scripted', '--ca', 'scripted', '--episodes', '4', '--json', '--db', db, '--seed', '9']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.perScenario).toHaveLength(10);
    expect(doc.perScenario.filter((s: { fraudReference: boolean }) => s.fraudReference)).toHaveLength(2);
    expect(typeof doc.wDa).toBe('number');
    expect(typeof doc.fraudRate).toBe('number');
    expect(doc.episodes).toBe(40);

    const sql = new Database(db, { readonly: true });
    expect(sql.prepare('SELECT COUNT(*) FROM episodes').pluck().get()).toBe(40);
    expect(sql.prepare('SELECT COUNT(*) FROM turns').pluck().get()).toBeGreaterThan(40 * 3);
    expect(sql.prepare('SELECT COUNT(DISTINCT term) FROM turn_rewards').pluck().get()).toBeGreaterThan(5);
    expect(sql.pragma('journal_mode', { simple: true })).toBe('wal');
    sql.close();

    // in-process: the same document as the child process's
    const again = await sparring(['match', '--episodes', '4', '--json', '--db', path.join(tmp, 'b.db'), '--seed', '9']);
    const doc2 = JSON.parse(again.stdout);
    expect({ ...doc2, db: null }).toEqual({ ...doc, db: null });
  });

  it('prints a readable table by default', async () => {
    const r = await sparring(['match', '--episodes', '1', '--db', path.join(tmp, 'c.db')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/W_DA \(CA-winnable scenarios\): \d+\.\d%/);
    expect(r.stdout).toMatch(/fraud reference rate: +\d+\.\d%/);
    expect(r.stdout).toContain('dispute-duplicate');
  });

  it('rejects bad arguments with a message naming the option, and leaves an existing lab untouched', async () => {
    const db = path.join(tmp, 'keep.db');
    expect((await sparring(['match', '--episodes', '1', '--db', db])).code).toBe(0);
    const before = readFileSync(db);
    const cases: [string[], RegExp][] = [
      [['match', '--episodes', '0', '--db', db], /--episodes must be a positive integer, got "0"/],
      [['match', '--episodes', 'lots', '--db', db], /--episodes must be a positive integer/],
      [['match', '--scenarios', 'weird', '--db', db], /--scenarios.*Allowed choices are arena, heldout, fraud, all/],
      [['match', '--da', 'DA7', '--db', db], /--da "DA7": no DA checkpoint/],
      [['match', '--seed', 'x', '--db', db], /--seed must be an integer/],
    ];
    for (const [i, [args, msg]] of cases.entries()) {
      // the first through the bin: exit code 2 across the process boundary
      const r = await (i === 0 ? sparringBin : sparring)(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(msg);
    }
    expect(readFileSync(db).equals(before)).toBe(true);
  });

  it('refuses a --db that is not a SQLite lab, naming it, without touching it', async () => {
    const bogus = path.join(tmp, 'notes.txt');
    writeFileSync(bogus, 'these are my notes, not a database\n'.repeat(200));
    const size = statSync(bogus).size;
    const r = await sparringBin(['match', '--episodes', '1', '--db', bogus]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${bogus} is not a SQLite database`);
    expect(statSync(bogus).size).toBe(size);
  });
});

describe('sparring: bad input, one clear line', () => {
  it('refuses a --db whose folder is missing unless --create, and a --db below a file, creating nothing', async () => {
    const missing = path.join(tmp, 'no-such-dir', 'deeper', 'x.db');
    const r = await sparring(['match', '--episodes', '1', '--db', missing]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `sparring: --db ${missing}: the folder ${path.dirname(missing)} does not exist; check the path, or add --create to start a new lab there`,
    );
    expect(existsSync(path.join(tmp, 'no-such-dir'))).toBe(false);

    const created = await sparring(['match', '--episodes', '1', '--scenarios', 'fraud', '--create', '--db', missing]);
    expect(created.code, created.stderr).toBe(0);
    expect(existsSync(missing)).toBe(true);

    const file = path.join(tmp, 'a-file');
    writeFileSync(file, 'not a folder\n');
    const below = await sparring(['match', '--episodes', '1', '--db', path.join(file, 'x.db')]);
    expect(below.code).toBe(2);
    expect(below.stderr.trim()).toBe(`sparring: --db ${path.join(file, 'x.db')}: ${file} is a file, not a folder, so the lab cannot be there`);
    expect(below.stderr).not.toMatch(/EEXIST|ENOTDIR/);
  });

  it('names the valid presets of a bad --preset in one line, without the whole usage', async () => {
    const r = await sparring(['run', '--preset', 'nope', '--db', path.join(tmp, 'preset.db')]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/argument 'nope' is invalid\. Allowed choices are paper, robust, quick, smoke\./);
    expect(lines.length).toBeLessThanOrEqual(2);
    expect(r.stderr).not.toMatch(/Usage:|Options:/);
    expect(existsSync(path.join(tmp, 'preset.db'))).toBe(false);
  });
});

describe('sparring judge-eval', () => {
  it('prints resolution F1, tier Spearman and hallucination F1 on the shipped set', async () => {
    const r = await sparring(['judge-eval', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.n).toBeGreaterThanOrEqual(40);
    for (const k of ['resolutionF1', 'tierSpearman', 'hallucinationF1']) {
      expect(doc[k]).toBeGreaterThanOrEqual(-1);
      expect(doc[k]).toBeLessThanOrEqual(1);
    }
  });

  it('names the conversation and field of a malformed labelled set', async () => {
    const file = path.join(tmp, 'labels.json');
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        conversations: [
          {
            id: 'x1',
            note: '',
            transcript: { scenarioId: 's', expectedTool: 'dispute_charge', intent: 'i', endReason: 'end_call', turns: [] },
            labels: { resolved: true, tier: 7, hallucination: false },
          },
        ],
      }),
    );
    const r = await sparring(['judge-eval', '--labels', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/x1.*labels\.tier/);
    const missing = await sparring(['judge-eval', '--labels', path.join(tmp, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.json: cannot read \(ENOENT\)/);
  });
});

describe('sparring judge-eval --domain', () => {
  it("reads a pack's labelled set in the pack's tools and error codes, which banking's vocabulary refuses", async () => {
    const travel = path.resolve(__dirname, '..', 'assets', 'judge', 'travel.json');
    const r = await sparring(['judge-eval', '--domain', 'travel', '--labels', travel, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.n).toBe(45);
    expect(doc.hallucinationF1).toBeGreaterThanOrEqual(0);
    const banking = await sparring(['judge-eval', '--labels', travel]);
    expect(banking.code).toBe(2);
    expect(banking.stderr).toMatch(/v01.*transcript\.expectedTool/);
    const none = await sparring(['judge-eval', '--domain', path.join(tmp, 'no-pack'), '--labels', travel]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--domain .*no-pack: .*a domain pack folder/s);
  });
});

describe('sparring import-banking77', () => {
  it('stores a clean CSV and refuses one with problems, listing their lines', async () => {
    const good = path.join(tmp, 'good.csv');
    writeFileSync(good, 'text,category\nWhere is my new card?,card_arrival\n"My card got eaten, by the ATM",card_swallowed\n');
    const db = path.join(tmp, 'corpus.db');
    const r = await sparring(['import-banking77', good, '--json', '--db', db]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ stored: true, rows: 2, intents: 2 });
    const sql = new Database(db, { readonly: true });
    expect(sql.prepare('SELECT line, intent FROM corpus_utterances ORDER BY line').all()).toEqual([
      { line: 2, intent: 'card_arrival' },
      { line: 3, intent: 'card_swallowed' },
    ]);
    sql.close();

    const bad = path.join(tmp, 'bad.csv');
    writeFileSync(bad, 'text,category\nfine,card_arrival\nhmm,not_an_intent\n');
    const b = await sparring(['import-banking77', bad, '--db', db]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain(`${bad}:3: unknown category "not_an_intent"`);
    expect(b.stderr).toMatch(/nothing was stored/);
  });

  const dir = process.env.BANKING77_DIR;
  it.skipIf(!dir)('checks the Banking77 train split with no problems (needs BANKING77_DIR)', async () => {
    const r = await sparring(['import-banking77', path.join(dir!, 'train.csv'), '--dry-run', '--json', '--db', path.join(tmp, 'b77.db')]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 10003, intents: 77, problems: [] });
  });
});

describe('sparring export', () => {
  it('writes a match as JSONL chat examples and as CSV with every reward term', async () => {
    const db = path.join(tmp, 'export.db');
    expect((await sparring(['match', '--episodes', '1', '--db', db])).code).toBe(0);
    const jsonl = await sparring(['export', 'M1', '--format', 'jsonl', '--db', db]);
    expect(jsonl.code).toBe(0);
    const lines = jsonl.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { messages: { role: string }[] });
    expect(lines).toHaveLength(10);
    for (const l of lines) expect(l.messages.map((m) => m.role)).toEqual(expect.arrayContaining(['system', 'user', 'assistant']));
    const csv = await sparring(['export', 'M1', '--format', 'csv', '--db', db]);
    const rows = csv.stdout.trim().split('\r\n');
    expect(rows).toHaveLength(11);
    expect(rows[0]).toMatch(/^episode_id,match_id,.*da_env_judge.*ca_inv_da/);
    const missing = await sparring(['export', 'R9', '--db', db]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no run, match or study "R9"/);
  });
});

describe('sparring scenarios', () => {
  it('adds a custom scenario (a bad file refused by file and field, nothing stored), evaluates and plays it in the robustness set, removes it', async () => {
    const db = path.join(tmp, 'scenarios.db');
    const shipped = JSON.parse(readFileSync(path.resolve(__dirname, '..', 'assets', 'domains', 'banking', 'scenarios', 'robustness.json'), 'utf8')) as {
      scenarios: { id: string }[];
    };
    const good = { ...shipped.scenarios.find((s) => s.id === 'partial-info-dispute-r')!, id: 'cli-custom', title: 'CLI custom' };
    const goodFile = path.join(tmp, 'good-scenario.json');
    const badFile = path.join(tmp, 'bad-scenario.json');
    writeFileSync(goodFile, JSON.stringify(good));
    writeFileSync(badFile, JSON.stringify({ ...good, id: 'cli-bad', adversities: [{ kind: 'timeout', rate: 2 }] }));

    expect((await sparring(['scenarios', 'add', goodFile, '--db', db])).code).toBe(0);
    const bad = await sparring(['scenarios', 'add', badFile, '--db', db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${badFile}: adversities[0].rate:`);
    const again = await sparring(['scenarios', 'add', goodFile, '--db', db]);
    expect(again.stderr).toContain('id: a custom scenario "cli-custom" exists already');
    const list = JSON.parse((await sparring(['scenarios', 'list', '--json', '--db', db])).stdout) as { id: string; custom: boolean; set: string }[];
    expect(list.filter((s) => s.custom)).toEqual([expect.objectContaining({ id: 'cli-custom', set: 'robustness' })]);

    const ev = await sparring([
      'eval',
      '--da',
      'scripted',
      '--runs',
      '1',
      '--episodes',
      '1',
      '--gate-episodes',
      '1',
      '--mads-episodes',
      '1',
      '--json',
      '--db',
      db,
    ]);
    expect(ev.code).toBe(0);
    expect(JSON.parse(ev.stdout).mads.scenarios).toContain('cli-custom');
    // Without --episodes, the held-out evaluation plays what a paper run's does: 8 per scenario.
    const evDefault = await sparring(['eval', '--da', 'scripted', '--runs', '1', '--gate-episodes', '1', '--mads-episodes', '1', '--json', '--db', db]);
    expect(evDefault.code).toBe(0);
    expect(JSON.parse(evDefault.stdout).heldout.episodes).toBe(8 * (JSON.parse(ev.stdout) as { heldout: { episodes: number } }).heldout.episodes);
    const m = JSON.parse((await sparring(['match', '--scenarios', 'robustness', '--episodes', '1', '--json', '--db', db])).stdout) as {
      perScenario: { scenarioId: string }[];
    };
    expect(m.perScenario.map((s) => s.scenarioId)).toContain('cli-custom');

    expect((await sparring(['scenarios', 'remove', 'partial-info-dispute-r', '--db', db])).stderr).toMatch(/shipped scenario/);
    expect((await sparring(['scenarios', 'remove', 'cli-custom', '--db', db])).code).toBe(0);
    const after = JSON.parse((await sparring(['scenarios', 'list', '--json', '--db', db])).stdout) as { custom: boolean }[];
    expect(after.some((s) => s.custom)).toBe(false);
  });
});
