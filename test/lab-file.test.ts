/**
 * The lab file from the command line (issue 51, items 1, 2, 8, 9): a run another process drives
 * cannot be resumed beside it; a read-only lab serves the commands that read it and the writing
 * ones say the file is read-only; an empty file is not taken for a new lab; output piped into a
 * reader that stops early ends quietly; an episode count past its bound is refused by name.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../core/presets';

const BIN = path.resolve(__dirname, '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-labfile-'));
const sparring = (args: string[], input?: string) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', ...(input !== undefined ? { input } : {}) });

describe('the lab file', () => {
  const lab = path.join(tmp, 'lab.db');

  it('a read-only lab: reading commands work, a writing one names the file as read-only; nothing changes', () => {
    expect(sparring(['match', '--episodes', '1', '--db', lab]).status).toBe(0);
    const ro = path.join(tmp, 'read-only.db');
    copyFileSync(lab, ro);
    chmodSync(ro, 0o444);
    const before = readFileSync(ro);
    const list = sparring(['scenarios', 'list', '--db', ro]);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/partial-info-dispute-r/);
    const exp = sparring(['export', 'M1', '--db', ro]);
    expect(exp.status, exp.stderr).toBe(0);
    expect(exp.stdout.split('\n').filter(Boolean).length).toBeGreaterThan(5);
    const write = sparring(['match', '--episodes', '1', '--db', ro]);
    expect(write.status).toBe(1);
    expect(write.stderr).toContain(`sparring: ${ro} is read-only: this command writes to the lab`);
    expect(write.stderr).not.toMatch(/attempt to write a readonly database/);
    expect(readFileSync(ro).equals(before)).toBe(true);
    // Four child processes one after another (node, tsx and onnxruntime each): 60 s ran out here at a load of 16.
  }, 120_000);

  it('an empty file given as --db is refused by name and left as it is; a path that does not exist yet is a new lab', () => {
    const empty = path.join(tmp, 'empty.db');
    writeFileSync(empty, '');
    const r = sparring(['scenarios', 'list', '--db', empty]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${empty} is an empty file, not a lab`);
    expect(statSync(empty).size).toBe(0);
    const fresh = sparring(['scenarios', 'list', '--db', path.join(tmp, 'new.db')]);
    expect(fresh.status, fresh.stderr).toBe(0);
  });

  it('piped into a reader that stops early (| head), a command ends quietly, without an EPIPE crash', async () => {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'export', 'M1', '--db', lab], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      // Read a little, then close the pipe, as `head -c 100` does.
      child.stdout.once('data', () => child.stdout.destroy());
      child.on('exit', (code) => resolve({ code, stderr }));
    });
    expect(r.stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(r.code).toBe(0);
  });

  it('match --episodes past its bound is refused naming the bound and why', () => {
    const r = sparring(['match', '--episodes', '1000000000', '--db', lab]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--episodes must be at most 1000 (episodes per scenario of one match, held in memory with their turns)');
  });

  it('run --resume of a run another live process drives is refused with its pid and host; the run ends as one run', async () => {
    const db = path.join(tmp, 'lease.db');
    const c = structuredClone(PRESETS.smoke.config);
    Object.assign(c.stopping, { nMax: 2, nMin: Math.min(c.stopping.nMin, 2) });
    c.arena.episodesPerScenario = 1;
    const config = path.join(tmp, 'lease.json');
    writeFileSync(config, JSON.stringify(c));
    const first = spawn(process.execPath, [BIN, 'run', '--config', config, '--db', db], { stdio: 'ignore' });
    let exited = false;
    const done = new Promise<number | null>((resolve) =>
      first.on('exit', (code) => {
        exited = true;
        resolve(code);
      }),
    );
    // Wait until the run exists and its owner is recorded (or the process has ended): a readiness
    // signal, not a clock — a loaded machine can take well over 20 s to start node, tsx and onnxruntime.
    let owner: { owner_pid: number; owner_host: string } | undefined;
    for (let i = 0; i < 900 && !owner && !exited; i++) {
      await new Promise((r) => setTimeout(r, 100));
      try {
        const l = new Database(db, { readonly: true, fileMustExist: true });
        owner = l.prepare('SELECT owner_pid, owner_host FROM runs WHERE id = ? AND owner_pid IS NOT NULL').get('R1') as typeof owner;
        l.close();
      } catch {
        /* not created yet */
      }
    }
    expect(owner?.owner_pid).toBe(first.pid);
    const second = sparring(['run', '--resume', 'R1', '--db', db]);
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`run R1 is being driven by process ${first.pid} on ${os.hostname()}`);
    expect(await done).toBe(0);
    const l = new Database(db, { readonly: true });
    // One run's checkpoints: DA0, CA0 and a gym's (not twice as many), and the lease let go.
    const names = l.prepare('SELECT name FROM checkpoints ORDER BY rowid').pluck().all() as string[];
    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((n) => /^(DA|CA)0$/.test(n))).toEqual(['DA0', 'CA0']);
    expect(l.prepare('SELECT owner_pid FROM runs WHERE id = ?').pluck().get('R1')).toBeNull();
    l.close();
  }, 120_000);
});
