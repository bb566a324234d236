/**
 * `sparring study` end to end on a tiny config (2 seeds × 2 arms): a study killed with kill -9
 * (the study process and its workers) resumes with `--resume` and ends with the same tables as
 * an uninterrupted one, each run's matches and checkpoints stored once; a worker that crashes
 * fails its (arm, seed) visibly while the rest finish, and `--resume` then completes it.
 * The killed study runs through bin/sparring.js (kill -9 of its process group is what is
 * tested), concurrently with the uninterrupted one it is compared with; the other commands run
 * the same commander program in-process (test/support/cli-in-process.ts), their workers still
 * child processes.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { hostCpuLine } from '../core/contract/device';
import { PRESETS } from '../core/presets';
import type { RunConfig } from '../core/coevolution/run-config';
import { hostCpu } from '../models/device';
import { sparringInProcess } from './support/cli-in-process';
import type { CaPolicyView, StudyCaPolicyArm } from '../core/contract/contract';
import { fmt } from '../core/stats/format';
import { otherIntentScenarios } from '../core/rl/demos';
import { bankingDomain } from '../host/domain-files';
import { writeTinyStudyConfig } from './support/tiny-study-config';

const exec = promisify(execFile);
const BIN = path.resolve(__dirname, '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-study-'));

const tinyConfig = (): string => writeTinyStudyConfig(tmp);

interface StudyJson {
  study: { id: string; status: string };
  runs: { arm: string; seed: number; runId: string; status: string; error: string | null; matches: number }[];
  hosts: { host: string; runs: number }[];
  heldoutEpisodes: number[];
  arms: unknown[];
  paired: unknown[];
}

/** `sparring ...args` through bin/sparring.js in a child process. */
async function sparringBin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await exec(process.execPath, [BIN, ...args], { maxBuffer: 1 << 24 });
    return { code: 0, ...r };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** `sparring ...args` in this process (calls must not overlap one another). */
const sparring = sparringInProcess;

const ARGS = (db: string, config: string) => ['study', '--config', config, '--seeds', '2', '--arms', 'full,mix-100-0', '--workers', '2', '--db', db];

/** Start a study and SIGKILL its process group (study and workers) once the first run has finished. */
function killAfterFirstRun(db: string, config: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...ARGS(db, config)], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (/\) finished in/.test(err)) process.kill(-child.pid!, 'SIGKILL');
    });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve(err) : reject(new Error(`study ended (${code}) before it was killed: ${err}`))));
  });
}

/** Every run's matches and gym checkpoints are stored once: as many as its summary lists. */
function storedOnce(db: string, s: StudyJson): void {
  const lab = new Database(db, { readonly: true });
  try {
    for (const r of s.runs) {
      const matches = lab.prepare("SELECT COUNT(*) FROM matches WHERE id LIKE ? || '-M%'").pluck().get(r.runId) as number;
      expect(matches, `${r.runId} matches`).toBe(r.matches);
      const episodes = lab.prepare("SELECT COUNT(*) FROM episodes WHERE match_id LIKE ? || '-M%'").pluck().get(r.runId) as number;
      const distinct = lab.prepare("SELECT COUNT(DISTINCT id) FROM episodes WHERE match_id LIKE ? || '-M%'").pluck().get(r.runId) as number;
      expect(episodes).toBe(distinct);
      const snap = JSON.parse(lab.prepare('SELECT snapshot_json FROM runs WHERE id = ?').pluck().get(r.runId) as string) as { context: { gyms: unknown[] } };
      const cps = lab.prepare('SELECT COUNT(*) FROM checkpoints WHERE run_id = ?').pluck().get(r.runId) as number;
      expect(cps, `${r.runId} checkpoints`).toBe(2 + snap.context.gyms.length);
    }
  } finally {
    lab.close();
  }
}

interface EstimateJson {
  study: string;
  arms: {
    arm: string;
    routing: { gain: { mean: number }; gainVsBaseline?: { seeds: number[] } };
    scenarios: { scenarioId: string; gain: { mean: number } }[];
  }[];
  runs: {
    arm: string;
    seed: number;
    matchSeed: number;
    da0: string;
    finalDa: string;
    finalCa: string;
    matches: { da0: string; finalDa: string };
    perScenario?: { scenarioId: string; da0: number; final: number }[];
    da0Metrics: { routing: number };
    finalMetrics: { routing: number };
  }[];
}

const tables = (s: StudyJson) => ({
  runs: s.runs.map(({ arm, seed, runId, status, matches }) => ({ arm, seed, runId, status, matches })),
  arms: s.arms,
  paired: s.paired,
});

describe('sparring study', () => {
  it('refuses an unknown arm, preset or overlay field by name before anything runs', async () => {
    const db = path.join(tmp, 'refused.db');
    // the first through the bin: exit code 2 across the process boundary
    const arm = await sparringBin(['study', '--preset', 'quick', '--seeds', '2', '--arms', 'full,no-such-arm', '--db', db]);
    expect(arm.code).toBe(2);
    expect(arm.stderr).toMatch(/unknown arm "no-such-arm"/);
    const preset = await sparring(['study', '--preset', 'nope', '--seeds', '2', '--db', db]);
    expect(preset.code).toBe(2);
    expect(preset.stderr).toMatch(/unknown preset "nope"/);
    const bad = path.join(tmp, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...PRESETS.quick.config, gym: { ...PRESETS.quick.config.gym, failurShare: 0.5 } }));
    const field = await sparring(['study', '--config', bad, '--seeds', '2', '--db', db]);
    expect(field.code).toBe(2);
    expect(field.stderr).toMatch(/failurShare/);
    // --preset with --config: the file is an overlay on the preset, checked whole.
    const overlay = path.join(tmp, 'overlay.json');
    writeFileSync(overlay, JSON.stringify({ gym: { failurShare: 0.5 } }));
    const over = await sparring(['study', '--preset', 'quick', '--config', overlay, '--seeds', '2', '--db', db]);
    expect(over.code).toBe(2);
    expect(over.stderr).toMatch(/failurShare/);
    // --arm NAME=FILE: the file named when it is missing, not JSON or refused by the schema.
    const arm1 = await sparring(['study', '--preset', 'quick', '--seeds', '2', '--arm', 'mine=' + path.join(tmp, 'missing.json'), '--db', db]);
    expect(arm1.code).toBe(2);
    expect(arm1.stderr).toMatch(/--arm mine=.*missing\.json: cannot read \(ENOENT\)/);
    const armTypo = await sparring(['study', '--preset', 'quick', '--seeds', '2', '--arm', `mine=${overlay}`, '--db', db]);
    expect(armTypo.code).toBe(2);
    expect(armTypo.stderr).toMatch(/arm mine \(.*overlay\.json\).*failurShare/);
    expect((await sparring(['study', '--preset', 'quick', '--seeds', '2', '--arm', 'mine', '--db', db])).stderr).toMatch(/--arm takes NAME=FILE/);
    // --estimate validation: the quick preset's runs keep no validation slice; refused before the study exists.
    const slice = await sparring(['study', '--preset', 'quick', '--seeds', '2', '--estimate', 'validation', '--db', db]);
    expect(slice.code).toBe(2);
    expect(slice.stderr).toMatch(/--estimate validation: arm full keeps no validation slice/);
    expect((await sparring(['study', '--preset', 'quick', '--seeds', '2', '--estimate', 'heldout', '--db', db])).stderr).toMatch(
      /--estimate.*heldout.*(train|choices)/,
    );
    // --corpus: an import the lab does not hold, or an arm naming a hash it lacks; neither with --resume.
    const corpus = await sparring(['study', '--preset', 'quick', '--seeds', '2', '--corpus', 'banking77', '--db', db]);
    expect(corpus.code).toBe(2);
    expect(corpus.stderr).toContain(`--corpus banking77: no such corpus import in ${db} (it holds none;`);
    const lacking = path.join(tmp, 'lacking-corpus.json');
    writeFileSync(lacking, JSON.stringify({ bootstrap: { sft: { corpus: `sha256:${'1'.repeat(64)}` } } }));
    const arm2 = await sparring(['study', '--preset', 'quick', '--seeds', '2', '--arm', `b77=${lacking}`, '--db', db]);
    expect(arm2.code).toBe(2);
    expect(arm2.stderr).toContain(`arm b77: field bootstrap.sft.corpus: this lab holds no imported corpus whose rows hash to sha256:${'1'.repeat(64)}`);
    expect((await sparring(['study', '--resume', 'S1', '--corpus', 'banking77', '--db', db])).stderr).toMatch(
      /leave out --preset, --config, --seeds, --arm and --corpus/,
    );
    const list = await sparring(['study', 'list', '--json', '--db', db]);
    expect(JSON.parse(list.stdout)).toEqual([]);
  }, 60_000);

  it('runs a custom arm (--arm NAME=FILE) beside a shipped one on the same seeds, its runs on the overlaid config; study ca-policy reads each arm', async () => {
    const db = path.join(tmp, 'custom.db');
    const file = path.join(tmp, 'ca-gyms-off.json');
    writeFileSync(file, JSON.stringify({ schedule: { caGyms: false }, gym: { da: { steps: 3 } } }));
    // --arms defaults to full; the custom arm comes after it.
    const both = await sparring(['study', '--config', tinyConfig(), '--seeds', '1', '--arm', `steady-ca=${file}`, '--no-panel', '--json', '--db', db]);
    expect(both.code, both.stderr).toBe(0);
    const t = JSON.parse(both.stdout) as Omit<StudyJson, 'paired'> & { paired: { a: string; b: string }[] };
    expect(t.runs.map((x) => [x.arm, x.status])).toEqual([
      ['full', 'finished'],
      ['steady-ca', 'finished'],
    ]);
    expect(t.paired.map((p) => `${p.a} − ${p.b}`)).toEqual(['steady-ca − full']);
    // The study says what its custom arm is: the overlay its runs' config makes of the base.
    expect((t as unknown as { customArms: unknown }).customArms).toEqual([
      { arm: 'steady-ca', overlay: { schedule: { caGyms: false }, gym: { da: { steps: 3 } } } },
    ]);
    const lab = new Database(db, { readonly: true });
    const config = (id: string) => JSON.parse(lab.prepare('SELECT config_json FROM runs WHERE id = ?').pluck().get(id) as string) as RunConfig;
    const [full, mine] = t.runs.map((x) => config(x.runId));
    lab.close();
    expect(mine!.gym.da.steps).toBe(3);
    expect(mine!.schedule?.caGyms).toBe(false);
    expect({ ...mine!, gym: full!.gym, schedule: full!.schedule }).toEqual(full);
    // export: the study's paired differences as CSV, the figures `study --json` printed; the episodes of every run of it.
    const paired = await sparring(['export', 'S1', '--table', 'paired', '--db', db]);
    expect(paired.code, paired.stderr).toBe(0);
    const pairedRows = parseCsv<Record<string, string>>(paired.stdout, { columns: true });
    const wanted = (t as unknown as { paired: { a: string; b: string; measures: Record<string, { mean: number; n: number }> }[] }).paired[0]!;
    const daGyms = pairedRows.find((r) => r.measure === 'daGyms')!;
    expect([daGyms.arm, daGyms.baseline, Number(daGyms.mean), Number(daGyms.n)]).toEqual([
      wanted.a,
      wanted.b,
      wanted.measures.daGyms!.mean,
      wanted.measures.daGyms!.n,
    ]);
    expect(pairedRows).toHaveLength(Object.keys(wanted.measures).length);
    const armTable = JSON.parse((await sparring(['export', 'S1', '--table', 'arms', '--format', 'json', '--db', db])).stdout) as { rows: { arm: string }[] };
    expect(new Set(armTable.rows.map((r) => r.arm))).toEqual(new Set(['full', 'steady-ca']));
    const episodes = parseCsv<Record<string, string>>((await sparring(['export', 'S1', '--format', 'csv', '--db', db])).stdout, { columns: true });
    expect(new Set(episodes.map((e) => e.match_id!.split('-')[0]))).toEqual(new Set(t.runs.map((x) => x.runId)));
    // study ca-policy: each arm's CA, first match → last, from the runs' own first and last matches.
    const shift = await sparring(['study', 'ca-policy', 'S1', '--json', '--db', db]);
    expect(shift.code, shift.stderr).toBe(0);
    const arms = JSON.parse(shift.stdout) as StudyCaPolicyArm[];
    expect(arms.map((a) => [a.arm, a.seeds])).toEqual([
      ['full', [1]],
      ['steady-ca', [1]],
    ]);
    const perRun = JSON.parse((await sparring(['ca-policy', '--run', t.runs[0]!.runId, '--json', '--db', db])).stdout) as CaPolicyView;
    const withhold = (heads: CaPolicyView['matches'][number]['heads']) => heads.find((h) => h.head === 'withhold')!.values[1]!.meanP;
    const row = arms[0]!.rows.find((r) => r.head === 'withhold' && r.value === 'true')!;
    expect(row.first.mean).toBeCloseTo(withhold(perRun.matches[0]!.heads), 12);
    expect(row.last.mean).toBeCloseTo(withhold(perRun.matches.at(-1)!.heads), 12);
    expect(arms[0]!.rows).toHaveLength(27);
    expect((await sparring(['study', 'ca-policy', 'S1', 'nope', '--db', db])).stderr).toMatch(/nope is not an arm of study S1 \(full, steady-ca\)/);
    // report --study --ca-policy: the same figures, charted head by head (one dumbbell per arm and value).
    const out = path.join(tmp, 'ca-policy.html');
    const report = await sparring(['report', '--study', 'S1', '--ca-policy', '--out', out, '--db', db]);
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html.match(/aria-label="the CA's [a-z]+, first match → last"/g)).toHaveLength(8);
    expect(html.match(/<circle [^>]*r="3\.5"/g)!.length).toBeGreaterThanOrEqual(2 * 27);
    expect(html).toContain(`${fmt(row.first, false)}</td><td>${fmt(row.last, false)}</td>`);
    const plain = path.join(tmp, 'no-ca-policy.html');
    expect((await sparring(['report', '--study', 'S1', '--out', plain, '--db', db])).code).toBe(0);
    expect(readFileSync(plain, 'utf8')).toContain('Not read: <code>sparring report --study S1 --ca-policy</code>');
    expect((await sparring(['report', 'R1', '--ca-policy', '--out', plain, '--db', db])).stderr).toMatch(/--ca-policy goes with --study/);
  }, 300_000);

  it('a study made --arena-only shows no held-out or panel figure in any view unless --heldout asks, and plays no panel step', async () => {
    const db = path.join(tmp, 'arena-only.db');
    const made = await sparring(['study', '--config', tinyConfig(), '--seeds', '1', '--arena-only', '--db', db]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain('study S1: arena only, no panel step');
    expect(made.stdout).toContain('Arena only (made with --arena-only, for choosing settings)');
    expect(made.stdout).not.toMatch(/Held-out,/);
    const lab = new Database(db, { readonly: true });
    expect(lab.prepare("SELECT COUNT(*) FROM study_evaluations WHERE kind = 'panel'").pluck().get()).toBe(0);
    lab.close();
    // study show: arena only by default for this study; --heldout shows the figures and says it was made arena-only.
    const plain = JSON.parse((await sparring(['study', 'show', 'S1', '--json', '--db', db])).stdout) as StudyJson & {
      arenaOnly: boolean;
      study: { arenaOnly: boolean };
    };
    expect(plain).toMatchObject({ arenaOnly: true, study: { arenaOnly: true } });
    expect(plain).not.toHaveProperty('heldoutEpisodes');
    const asked = await sparring(['study', 'show', 'S1', '--heldout', '--json', '--db', db]);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stderr).toContain('study S1 was made arena-only');
    const full = JSON.parse(asked.stdout) as StudyJson & { arms: { measures: Record<string, { n: number }> }[] };
    expect(full.heldoutEpisodes).toEqual([12]);
    expect(full.arms[0]!.measures['final.routing']!.n).toBe(1);
    expect((await sparring(['study', 'show', 'S1', '--heldout', '--arena-only', '--db', db])).stderr).toMatch(
      /--heldout and --arena-only ask for opposite views/,
    );
    // report --study: the same default, and --heldout.
    const html = async (...extra: string[]) => {
      const out = path.join(tmp, `arena-only${extra.join('')}.html`);
      const r = await sparring(['report', '--study', 'S1', '--out', out, '--db', db, ...extra]);
      expect(r.code, r.stderr).toBe(0);
      return readFileSync(out, 'utf8');
    };
    const arenaHtml = await html();
    expect(arenaHtml).toContain('Arena only, for choosing settings on the arena');
    expect(arenaHtml).not.toContain('Held-out evaluation (RL-ADA Table 4)');
    expect(arenaHtml).not.toContain('Held-out routing by the arena’s reach');
    const heldoutHtml = await html('--heldout');
    expect(heldoutHtml).toContain('Held-out evaluation (RL-ADA Table 4)');
    expect(heldoutHtml).toMatch(/Held-out routing by the arena’s reach[\s\S]*<td>intents the arena plays<\/td><td>7<\/td>/);
    // Its runs are arena-only too: a run's report leaves the held-out table out unless --heldout asks, and then says so.
    const runHtml = async (...flags: string[]) => {
      const out = path.join(tmp, `run${flags.join('')}.html`);
      const r = await sparring(['report', 'R1', ...flags, '--out', out, '--db', db]);
      expect(r.code, r.stderr).toBe(0);
      return { html: readFileSync(out, 'utf8'), stderr: r.stderr };
    };
    expect((await runHtml()).html).toContain('data-testid="heldout-left-out"');
    const runAsked = await runHtml('--heldout');
    expect(runAsked.html).toContain("Against the run's latest CA");
    expect(runAsked.stderr).toContain('run R1 was made arena-only');
  }, 300_000);

  it('a study killed with kill -9 resumes and gives the tables of an uninterrupted one; nothing is stored twice', async () => {
    const config = tinyConfig();
    const a = path.join(tmp, 'a.db');
    const b = path.join(tmp, 'b.db');
    // The uninterrupted study (in-process) and the one killed (a child process) run side by side.
    const [whole] = await Promise.all([sparring([...ARGS(a, config), '--json']), killAfterFirstRun(b, config)]);
    expect(whole.code, whole.stderr).toBe(0);
    const uninterrupted = JSON.parse(whole.stdout) as StudyJson;
    expect(uninterrupted.study.status).toBe('finished');
    expect(uninterrupted.runs.map((r) => r.status)).toEqual(['finished', 'finished', 'finished', 'finished']);
    // Each worker recorded the processor its run ran on: this one, for all four.
    expect(uninterrupted.hosts).toEqual([{ host: hostCpuLine(hostCpu()), runs: 4 }]);
    // What a seed's held-out rates rest on: the quick preset's 1 run × 1 episode per held-out scenario.
    expect(uninterrupted.heldoutEpisodes).toEqual([12]);
    // The arms of a seed share its bootstrap. Two workers start both full runs; a mix-100-0 run starts
    // once a full run has finished, so at least the second one finds its seed's bootstrap recorded.
    const lab = new Database(a, { readonly: true });
    const reused = lab
      .prepare(
        "SELECT COUNT(*) FROM checkpoints c JOIN study_runs s ON s.run_id = c.run_id WHERE s.arm = 'mix-100-0' AND c.source = 'bootstrap' AND c.note LIKE 'the bootstrap of run R%, reused%'",
      )
      .pluck()
      .get() as number;
    lab.close();
    expect(reused).toBeGreaterThanOrEqual(2);

    const mid = JSON.parse((await sparring(['study', 'show', 'S1', '--json', '--db', b])).stdout) as StudyJson;
    expect(mid.runs.filter((r) => r.status === 'finished').length).toBeGreaterThanOrEqual(1);
    expect(mid.runs.filter((r) => r.status === 'finished').length).toBeLessThan(4);
    // Killed, it says so (not 'running'), and names how to continue it.
    expect(mid.study.status).toBe('interrupted');
    expect(mid.runs.map((r) => r.status)).not.toContain('running');
    expect((await sparring(['study', 'show', 'S1', '--db', b])).stdout).toMatch(
      /— interrupted \(no process runs it\); `sparring study --resume S1` continues it/,
    );
    // While another live process owns it, --resume refuses (two runners would start the same runs twice).
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const owned = new Database(b);
    owned.prepare("UPDATE studies SET owner_host = ?, owner_pid = ?, heartbeat_at = ? WHERE id = 'S1'").run(os.hostname(), other.pid, new Date().toISOString());
    owned.close();
    const busy = await sparring(['study', '--resume', 'S1', '--db', b]);
    other.kill('SIGKILL');
    expect(busy.code).toBe(2);
    expect(busy.stderr).toMatch(new RegExp(`study S1 is being run by process ${other.pid} on `));
    await new Promise((r) => other.once('exit', r));
    // Resumed with --estimate train: once every run has finished, the arena-only estimate plays too.
    const resumed = await sparring(['study', '--resume', 'S1', '--estimate', 'train', '--json', '--db', b]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = JSON.parse(resumed.stdout) as StudyJson & { arenaEstimate: { train: unknown; validation: unknown } };
    expect(tables(after)).toEqual(tables(uninterrupted));
    storedOnce(b, after);
    // And `study show` prints the same document as the study's own end.
    const shown = JSON.parse((await sparring(['study', 'show', 'S1', '--json', '--db', b])).stdout) as StudyJson;
    expect(tables(shown)).toEqual(tables(after));

    // The arena-only estimate: each run's DA0 and final DA against its final CA, as `match --run` plays.
    const estimate = async (...extra: string[]) => sparring(['study', 'estimate', 'S1', '--json', '--db', b, ...extra]);
    const matchCount = () => {
      const l = new Database(b, { readonly: true });
      const n = l.prepare('SELECT COUNT(*) FROM matches').pluck().get() as number;
      l.close();
      return n;
    };
    // `study estimate` finds what --estimate stored: the same tables, nothing played again.
    const played = matchCount();
    const e1 = await estimate();
    expect(e1.code, e1.stderr).toBe(0);
    expect(matchCount()).toBe(played);
    const est = JSON.parse(e1.stdout) as EstimateJson;
    const { study: _id, ...estTables } = est;
    expect(after.arenaEstimate).toEqual({ train: estTables, validation: null });
    expect(est.runs.map((r) => `${r.arm}/${r.seed}`).sort()).toEqual(['full/1', 'full/2', 'mix-100-0/1', 'mix-100-0/2']);
    const full = est.arms.find((x) => x.arm === 'full')!;
    const gains = est.runs.filter((r) => r.arm === 'full').map((r) => 100 * (r.finalMetrics.routing - r.da0Metrics.routing));
    expect(full.routing.gain.mean).toBeCloseTo((gains[0]! + gains[1]!) / 2, 9);
    expect(est.arms.find((x) => x.arm === 'mix-100-0')!.routing.gainVsBaseline!.seeds).toEqual([1, 2]);
    // A run's DA0 match is the match `match --run R --seed 1000+seed` plays.
    const one = est.runs[0]!;
    const runId = after.runs.find((r) => r.arm === one.arm && r.seed === one.seed)!.runId;
    expect(one.matchSeed).toBe(1000 + one.seed);
    const m = await sparring([
      'match',
      '--run',
      runId,
      '--seed',
      String(one.matchSeed),
      '--da',
      one.da0,
      '--ca',
      one.finalCa,
      '--threads',
      '1',
      '--json',
      '--db',
      b,
    ]);
    expect(m.code, m.stderr).toBe(0);
    const l = new Database(b, { readonly: true });
    const wDa = (id: string) => l.prepare('SELECT w_da FROM matches WHERE id = ?').pluck().get(id);
    expect(wDa((JSON.parse(m.stdout) as { matchId: string }).matchId)).toBe(wDa(one.matches.da0));
    // Routing per arena scenario is each of the run's two matches' win rate there, read from the lab.
    const rate = (id: string, sc: string) =>
      l.prepare('SELECT da_win_rate FROM match_scenarios WHERE match_id = ? AND scenario_id = ?').pluck().get(id, sc) as number;
    expect(one.perScenario!.length).toBe(10);
    for (const p of one.perScenario!) {
      expect(p.da0).toBe(rate(one.matches.da0, p.scenarioId));
      expect(p.final).toBe(rate(one.matches.finalDa, p.scenarioId));
    }
    const sc0 = full.scenarios[0]!;
    const perRun = est.runs.filter((r) => r.arm === 'full').map((r) => r.perScenario!.find((p) => p.scenarioId === sc0.scenarioId)!);
    expect(sc0.gain.mean).toBeCloseTo((100 * (perRun[0]!.final - perRun[0]!.da0) + 100 * (perRun[1]!.final - perRun[1]!.da0)) / 2, 9);
    l.close();
    // `study show` carries what was stored, paired against the same baseline, and prints it.
    const withEstimate = JSON.parse((await sparring(['study', 'show', 'S1', '--json', '--db', b])).stdout) as StudyJson & {
      arenaEstimate: { train: unknown; validation: unknown };
    };
    expect(withEstimate.arenaEstimate).toEqual({ train: estTables, validation: null });
    // Beyond the arena: the same two checkpoints against the same CA on synthetic scenarios of the
    // intents no arena, held-out or gym scenario names, stored under its own kind; the arena's estimate stays.
    const before = matchCount();
    const b1 = await estimate('--scenarios', 'other-intents');
    expect(b1.code, b1.stderr).toBe(0);
    const beyond = JSON.parse(b1.stdout) as EstimateJson & { scenarios: string };
    expect(beyond.scenarios).toBe('other-intents');
    // Two matches a run, one where the DA never trained (DA0 is its final DA).
    const played2 = beyond.runs.reduce((n, r) => n + (r.da0 === r.finalDa ? 1 : 2), 0);
    expect(matchCount()).toBe(before + played2);
    const validationHalf = otherIntentScenarios(bankingDomain(), bankingDomain().bank, 'validation').map((x) => x.id);
    expect(beyond.runs[0]!.perScenario!.map((p) => p.scenarioId)).toEqual(validationHalf);
    {
      const l2 = new Database(b, { readonly: true });
      expect(l2.prepare('SELECT scenario_set, episodes_per_scenario FROM matches WHERE id = ?').get(beyond.runs[0]!.matches.da0)).toEqual({
        scenario_set: 'other-intents',
        episodes_per_scenario: 8,
      });
      l2.close();
    }
    expect((await estimate('--scenarios', 'other-intents')).stdout).toBe(b1.stdout);
    expect(matchCount()).toBe(before + played2);
    const both = JSON.parse((await sparring(['study', 'show', 'S1', '--json', '--db', b])).stdout) as {
      arenaEstimate: { train: unknown };
      otherIntentsEstimate: { train: unknown; validation: unknown };
    };
    const { study: _sid, ...beyondTables } = beyond;
    expect(both.otherIntentsEstimate).toEqual({ train: beyondTables, validation: null });
    expect(both.arenaEstimate.train).toEqual(estTables);
    expect((await sparring(['study', 'estimate', 'S1', '--scenarios', 'heldout', '--db', b])).stderr).toMatch(/--scenarios.*heldout.*(arena|choices)/);
    const text = (await sparring(['study', 'show', 'S1', '--db', b])).stdout;
    expect(text).toContain('Held-out, final DA − DA0 (own CA):');
    expect(text).toContain('Arena-only estimate of the held-out gain');
    expect(text).toMatch(/Routing per arena scenario[^\n]*\n[^\n]*full gain +mix-100-0 gain\n[- ]+\n\S+ +\d+\.\d → \d+\.\d +[+-]?\d+\.\d/);
    // Held-out routing by the arena's reach: the shipped held-out set has 7 scenarios that share an intent with the arena, 5 that do not.
    expect(text).toMatch(
      /Held-out routing by the arena’s reach[^\n]*\n[^\n]*\n[- ]+\nfull +intents the arena plays +7 +[\d.]+ \(n=2: too few for an interval\)[^\n]*\nfull +intents it never plays +5 /,
    );
    // --arena-only: the same study with no held-out or panel figure, in text and JSON; the estimate stays.
    const arenaText = (await sparring(['study', 'show', 'S1', '--arena-only', '--db', b])).stdout;
    expect(arenaText).not.toMatch(/Held-out,|Held-out routing|panel figures|held-out figures: \d+ episodes/);
    expect(arenaText).toContain('W_DA per match (%):');
    expect(arenaText).toMatch(/mix-100-0 +strict PASS +2 /);
    const arenaJson = JSON.parse((await sparring(['study', 'show', 'S1', '--arena-only', '--json', '--db', b])).stdout) as StudyJson & {
      arenaOnly: boolean;
      arms: { measures: Record<string, unknown>; heldoutScenarios: unknown[]; heldoutReach: unknown }[];
      arenaEstimate: { train: unknown };
    };
    expect(arenaJson.arenaOnly).toBe(true);
    expect(arenaJson).not.toHaveProperty('heldoutEpisodes');
    expect(arenaJson).not.toHaveProperty('panel');
    for (const a of arenaJson.arms) {
      expect(Object.keys(a.measures).filter((k) => /^(final|da0|gain|panel)\./.test(k))).toEqual([]);
      expect(a.measures).toHaveProperty('daGyms');
      expect(a.heldoutScenarios).toEqual([]);
      expect(a.heldoutReach).toBeNull();
    }
    expect(arenaJson.arenaEstimate.train).toEqual(estTables);
    expect(text).toMatch(/mix-100-0 +strict PASS +2 /);
    expect((await estimate('--speak', 'validation')).stderr).toMatch(/keeps no validation slice/);
    expect((await estimate('--baseline', 'nope')).stderr).toMatch(/--baseline nope: not an arm of study S1/);
  }, 900_000);

  it('a crashing worker fails its (arm, seed) visibly, the rest finish, and --resume completes it', async () => {
    const config = tinyConfig();
    const db = path.join(tmp, 'crash.db');
    // One seed, two arms on two workers: the crash and a run beside it (the kill test above runs the 2 × 2 study).
    const r = await sparring(['study', '--config', config, '--seeds', '1', '--arms', 'full,mix-100-0', '--workers', '2', '--json', '--db', db], {
      SPARRING_STUDY_CRASH: 'mix-100-0/1',
    });
    expect(r.code).toBe(1);
    const s = JSON.parse(r.stdout) as StudyJson;
    expect(s.study.status).toBe('failed');
    expect(s.runs).toHaveLength(2);
    const crashed = s.runs.find((x) => x.arm === 'mix-100-0' && x.seed === 1)!;
    expect(crashed.status).toBe('failed');
    expect(crashed.error).toMatch(/worker process died \(exit code 70\)/);
    expect(r.stderr).toMatch(/mix-100-0 seed 1 \(R\d+\) failed: worker process died/);
    expect(s.runs.filter((x) => x !== crashed).map((x) => x.status)).toEqual(['finished']);
    const again = await sparring(['study', '--resume', s.study.id, '--json', '--db', db]);
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as StudyJson).runs.map((x) => x.status)).toEqual(['finished', 'finished']);
  }, 900_000);
});
