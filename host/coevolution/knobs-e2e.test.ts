/**
 * Issue 17's scripted target, end to end on a small quick-preset run: a planted fault (a turn
 * limit of 1 DA turn, so episodes deadlock at the limit) → a diagnostic proposes a write → a
 * person accepts it → the running `sparring run` (another process) takes it at its next phase
 * boundary without a restart → the process is killed with SIGKILL → the audit log is intact →
 * `--resume` finishes the run with the write in force → the measured window shows the recovery.
 *
 * The proposal is the run's own: the deadlock diagnostic (core/eau/diagnostics.ts) runs after
 * every match and records what it proposes in the lab (pending until a person decides).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/presets';
import type { RunConfig } from '../../core/coevolution/run-config';
import { knobStore } from '../store/knob-store';
import { openSqliteStore } from '../store/sqlite-store';
import type { SqliteRunStore } from '../store/sqlite-store';

const BIN = path.resolve(__dirname, '..', '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-knobs-e2e-'));
const db = path.join(tmp, 'lab.db');
const env = { ...process.env, ORT_DISABLE_TELEMETRY: '1' };
const children: ChildProcess[] = [];
afterAll(() => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));

function sparring(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, '--db', db, ...args], { env });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 137 : -1), stdout, stderr }));
  });
}

async function until<T>(what: string, f: () => T | null | undefined | false, ms: number): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The run's matches as its latest persisted snapshot has them. */
function matches(store: SqliteRunStore): { index: number; wDa: number; matchId: string }[] {
  const s = store.db.prepare("SELECT snapshot_json FROM runs WHERE id = 'R1'").pluck().get() as string | null;
  return s ? (JSON.parse(s) as { context: { matches: { index: number; wDa: number; matchId: string }[] } }).context.matches : [];
}

describe('EAU end to end: planted deadlock → proposal → accept → hot-swap → kill -9 → resume → recovery measured', () => {
  it('runs the scripted pattern on a small quick run', { timeout: 600_000 }, async () => {
    const q = PRESETS.smoke.config;
    const planted: RunConfig = {
      ...q,
      arena: { ...q.arena, episodesPerScenario: 2, maxDaTurns: 1 },
      // Five matches, whatever the stopping rule would say: two before the write, three after.
      stopping: { ...q.stopping, nMin: 5, nMax: 5 },
      gym: { ...q.gym, da: { ...q.gym.da, steps: 2 }, ca: { ...q.gym.ca, steps: 2 } },
      // Both agents train after every match, so DA gym steps follow the step-level write below
      // wherever it lands. Under the isolation gym they did only when the test's accept came
      // before match 2's DA gym ended (after the turn-limit write W_DA is high and only the CA
      // trains): on a busy machine it came later and no DA step ran with the new rate.
      schedule: { isolation: 'both' },
    };
    const configPath = path.join(tmp, 'planted.json');
    writeFileSync(configPath, JSON.stringify(planted));

    // 1. The run starts in another process; the lab is the only link.
    const first = sparring(['--create', 'run', '--config', configPath]);
    const store = openSqliteStore(db);
    const knobs = knobStore(store.db);
    const two = await until('match 2', () => (matches(store).length >= 2 ? matches(store) : null), 300_000);
    // 2. The run's deadlock diagnostic found the fault after each match and proposed; a person
    //    accepts the latest (match 2's) and dismisses the earlier one.
    const found = await until(
      'the deadlock proposal of match 2',
      () => {
        const ps = knobs.proposals('R1').filter((p) => p.source.kind === 'diagnostic' && p.source.name === 'deadlock');
        return ps.some((p) => p.at.matchIndex === 2) ? ps : null;
      },
      120_000,
    );
    const proposal = found.find((p) => p.at.matchIndex === 2)!;
    console.log(`proposal P${proposal.id}: ${proposal.knob} → ${proposal.value} — ${proposal.reason}; figures ${JSON.stringify(proposal.evidence.figures)}`);
    expect(proposal).toMatchObject({ knob: 'arena.maxDaTurns', status: 'pending' });
    expect(proposal.evidence.figures.deadlockRate).toBeGreaterThan(0.2);
    for (const p of found.filter((x) => x.id !== proposal.id && x.status === 'pending')) expect(knobs.dismiss('R1', p.id).status).toBe('dismissed');
    expect(knobs.request('R1', { knob: 'arena.maxDaTurns', value: 60, reason: 'out of range', by: 'person' })).toMatchObject({ ok: false, rule: 'range' });
    const accepted = knobs.accept('R1', proposal.id);
    expect(accepted.ok, accepted.ok ? '' : accepted.message).toBe(true);
    const writeId = accepted.ok ? accepted.write.id : -1;
    // A step-level knob as well: the DA gyms' learning rate, taken at the next GRPO step boundary.
    const lrWrite = knobs.request('R1', { knob: 'gym.da.lr', value: 5e-4, reason: 'faster DA gyms', by: 'person' });
    expect(lrWrite.ok, lrWrite.ok ? '' : lrWrite.message).toBe(true);
    // 3. The live run takes it at its next phase boundary, no restart.
    const applied = await until(
      'the write applied by the live run',
      () => {
        const w = knobs.write(writeId)!;
        return w.status === 'applied' ? w : null;
      },
      300_000,
    );
    expect(applied.from).toBe(1);
    const appliedAfter = applied.appliedState!.matches;
    expect(appliedAfter).toBeGreaterThanOrEqual(2);
    // 4. kill -9 once a match has been played with the new limit.
    await until('a match after the write', () => matches(store).length > appliedAfter, 300_000);
    children[0]!.kill('SIGKILL');
    const killed = await first;
    expect(killed.code).toBe(137);
    // The audit log survived, with who, why and where.
    const log = await sparring(['--json', 'knobs', 'log', 'R1']);
    expect(log.code).toBe(0);
    const logged = JSON.parse(log.stdout) as { id: number; knob: string; value: number; from: number; by: string; status: string; proposalId: number }[];
    expect(logged[0]).toEqual(
      expect.objectContaining({
        id: writeId,
        knob: 'arena.maxDaTurns',
        value: Number(proposal.value),
        from: 1,
        by: 'diagnostic:deadlock',
        status: 'applied',
        proposalId: proposal.id,
      }),
    );
    expect(logged[1]).toEqual(expect.objectContaining({ knob: 'gym.da.lr', value: 5e-4, by: 'person' }));
    // The episodes after the write were played with more than 1 DA turn; before, with 1.
    const agentTurns = (matchId: string) =>
      Math.max(...store.listEpisodes({ matchId, limit: 10_000 }).map((e) => store.getEpisode(e.id)!.turns.filter((t) => t.role === 'agent').length));
    expect(agentTurns(two[0]!.matchId)).toBe(1);
    expect(agentTurns(matches(store)[appliedAfter]!.matchId)).toBeGreaterThan(1);

    // 5. Resume: the run finishes with the write in force.
    const resumed = await sparring(['run', '--resume', 'R1']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const all = matches(store);
    expect(all).toHaveLength(5);
    for (const m of all.slice(appliedAfter)) expect(agentTurns(m.matchId), m.matchId).toBeGreaterThan(1);
    // Every DA gym step ran with one learning rate: the old one before the write applied, the new one from there on.
    const lrApplied = knobs.write(lrWrite.ok ? lrWrite.write.id : -1)!;
    expect(lrApplied.status).toBe('applied');
    const lrPoints = store.db
      .prepare("SELECT step, value, phase FROM run_metrics WHERE run_id = 'R1' AND key = 'gym/lr' AND phase LIKE 'gym:DA%' ORDER BY step")
      .all() as { step: number; value: number }[];
    const split = lrApplied.appliedState!.metricStep;
    expect(lrPoints.filter((p) => p.step < split).every((p) => p.value === planted.gym.da.lr)).toBe(true);
    expect(lrPoints.filter((p) => p.step >= split).length).toBeGreaterThan(0);
    expect(lrPoints.filter((p) => p.step >= split).every((p) => p.value === 5e-4)).toBe(true);
    console.log(`gym.da.lr applied at ${JSON.stringify(lrApplied.appliedState)}; DA gym/lr by step: ${lrPoints.map((p) => `${p.step}:${p.value}`).join(' ')}`);
    // 6. The measured window shows the recovery, beyond the noise floor, in the audit log.
    const effect = knobs.effects('R1').find((e) => e.writeId === writeId);
    const wDa = effect!.effects.find((e) => e.measure === 'W_DA')!;
    console.log(
      `W_DA by match: ${all.map((m) => m.wDa.toFixed(3)).join(', ')}; write applied after match ${appliedAfter}; ` +
        `window before ${wDa.before.mean?.toFixed(3)} (n ${wDa.before.n}), after ${wDa.after.mean?.toFixed(3)} (n ${wDa.after.n}), Δ ${wDa.delta?.toFixed(3)}, noise floor ${wDa.noiseFloor?.toFixed(3)}, mark ${effect!.mark}`,
    );
    expect(wDa.delta!).toBeGreaterThan(wDa.noiseFloor!);
    expect(effect!.mark).toBe('kept');
    const text = await sparring(['knobs', 'log', 'R1']);
    console.log(text.stdout);
    expect(text.stdout).toMatch(/kept: W_DA \+/);
    // 7. The experience pool: a new run inherits the kept write.
    expect(knobs.keptWrites('R1').map((w) => [w.knob, w.value])).toContainEqual(['arena.maxDaTurns', Number(proposal.value)]);
    const inheriting = sparring(['run', '--config', configPath, '--inherit', 'R1']);
    const inherited = await until(
      'R2 with its inherited writes',
      () => {
        const has = store.db.prepare("SELECT COUNT(*) FROM runs WHERE id = 'R2'").pluck().get() as number;
        const ws = has ? knobs.writes('R2') : [];
        return ws.length > 0 ? ws : null;
      },
      120_000,
    );
    expect(inherited).toContainEqual(
      expect.objectContaining({ knob: 'arena.maxDaTurns', from: 1, value: Number(proposal.value), status: 'applied', by: `inherited:R1/W${writeId}` }),
    );
    expect(knobs.effective('R2').arena.maxDaTurns).toBe(Number(proposal.value));
    expect(knobs.baseConfig('R2').arena.maxDaTurns).toBe(1);
    const history = await sparring(['knobs', 'history', 'arena.maxDaTurns']);
    console.log(history.stdout);
    expect(history.stdout).toMatch(new RegExp(`R1 .*1 → ${proposal.value}.*kept`));
    expect(history.stdout).toMatch(new RegExp(`R2 .*1 → ${proposal.value}`));
    children.at(-2)!.kill('SIGKILL');
    await inheriting;
    store.close();
  });
});
