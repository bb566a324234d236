/**
 * `sparring study panel S` end to end on a tiny study (1 arm × 2 seeds): each final DA is
 * evaluated against the scripted CA and the *other* seed's final CA (never its own run's), the
 * study JSON carries the panel figures per (arm, seed) and per arm with intervals, and a second
 * call computes nothing.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../core/presets';
import { studyPanelProtocol } from '../host/study/study-panel';
import { writeTinyStudyConfig } from './support/tiny-study-config';

const exec = promisify(execFile);
const BIN = path.resolve(__dirname, '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-study-panel-'));

async function sparring(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await exec(process.execPath, [BIN, ...args], { maxBuffer: 1 << 24 });
    return { code: 0, ...r };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

const tinyConfig = (): string => writeTinyStudyConfig(tmp);

type Metrics = Record<'routing' | 'strictPass' | 'meanReward', number>;
interface Figures {
  da: string;
  counterparts: string[];
  panel: Metrics;
  training: Metrics | null;
  gap: Metrics | null;
}
interface StudyJson {
  runs: { arm: string; seed: number; runId: string }[];
  arms: { arm: string; measures: Record<string, { n: number; mean: number }> }[];
  panel: { protocol: { seeds: number[] }; runs: { arm: string; seed: number; figures: Figures | null }[] };
}

describe('studyPanelProtocol', () => {
  it("plays one episode per held-out scenario and run against each counterpart, whatever the run's own evaluation plays", () => {
    expect(PRESETS.paper.config.eval.episodesPerScenario).toBe(8);
    expect(studyPanelProtocol(PRESETS.paper.config)).toEqual({ seeds: [1, 2], episodesPerScenario: 1 });
    expect(studyPanelProtocol({ eval: { runs: 3 } })).toEqual({ seeds: [1, 2, 3], episodesPerScenario: 1 });
  });
});

describe('sparring study panel', () => {
  it("evaluates each final DA against the other seed's final CA and the scripted CA; the JSON carries it; a second call computes nothing", async () => {
    const db = path.join(tmp, 'lab.db');
    const made = await sparring(['study', '--config', tinyConfig(), '--seeds', '2', '--arms', 'full', '--workers', '2', '--no-panel', '--json', '--db', db]);
    expect(made.code, made.stderr).toBe(0);
    const before = JSON.parse(made.stdout) as StudyJson;
    expect(before.panel.runs.map((r) => r.figures)).toEqual([null, null]);

    const first = await sparring(['study', 'panel', 'S1', '--json', '--db', db]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/2 final DAs evaluated, 0 already stored, 0 failed/);
    const s = JSON.parse(first.stdout) as StudyJson;
    const lab = new Database(db, { readonly: true });
    const finalCa = (runId: string) =>
      lab.prepare("SELECT name FROM checkpoints WHERE role = 'CA' AND run_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1").pluck().get(runId) as string;
    const [r1, r2] = s.runs;
    const [f1, f2] = s.panel.runs.map((r) => r.figures!);
    expect(f1!.counterparts).toEqual(['scripted', `ca:${finalCa(r2!.runId)}`]);
    expect(f2!.counterparts).toEqual(['scripted', `ca:${finalCa(r1!.runId)}`]);
    for (const f of [f1!, f2!]) {
      expect(f.gap!.routing).toBeCloseTo(f.training!.routing - f.panel.routing, 12);
      expect(f.panel.routing).toBeGreaterThanOrEqual(0);
      expect(f.panel.routing).toBeLessThanOrEqual(1);
    }
    const full = s.arms[0]!.measures;
    expect(full['panel.routing']!.n).toBe(2);
    expect(full['panel.routing']!.mean).toBeCloseTo((f1!.panel.routing + f2!.panel.routing) / 2, 12);
    expect(full['panel.gap.meanReward']!.n).toBe(2);
    const stored = lab.prepare('SELECT COUNT(*) FROM panel_evaluations').pluck().get() as number;
    // Two DAs × (two panel members + the training counterpart).
    expect(stored).toBe(6);

    const second = await sparring(['study', 'panel', 'S1', '--json', '--db', db]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/0 final DAs evaluated, 2 already stored/);
    expect((JSON.parse(second.stdout) as StudyJson).panel).toEqual(s.panel);
    expect(lab.prepare('SELECT COUNT(*) FROM panel_evaluations').pluck().get()).toBe(stored);
    lab.close();

    const shown = await sparring(['study', 'show', 'S1', '--db', db]);
    expect(shown.stdout).toMatch(/Counterpart shift \(IB-RL\)/);
    expect(shown.stdout).toMatch(/Mismatch gap, training counterpart − panel/);
    const html = path.join(tmp, 'study.html');
    const report = await sparring(['report', '--study', 'S1', '--out', html, '--db', db]);
    expect(report.code, report.stderr).toBe(0);
    expect(readFileSync(html, 'utf8')).toMatch(/Counterpart shift \(IB-RL\)<\/h2>[\s\S]*Mismatch gap \(training − panel\)/);
    const bad = await sparring(['study', 'show', 'S1', '--baseline', 'nope', '--db', db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--baseline nope: not an arm of study S1 \(full\)/);
  }, 600_000);
});
