/**
 * `sparring route` end to end: the real bin in a child process, utterances on stdin, one JSON line
 * out per utterance; the SFT DA is stored in the lab and reused; an unknown SPEC exits with 2.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DOMAIN_TOOLS } from '../../../core/domain/types';

const BIN = path.resolve(__dirname, '..', '..', '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-route-'));

function sparring(args: string[], stdin: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, SPARRING_DB: path.join(tmp, 'default.db') } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

const UTTERANCES = 'There is a $45.20 charge from Uber that I never made\n\nMy card keeps getting declined at the shop\nI want to close my account\n';

describe('sparring route', () => {
  it('trains an SFT DA, writes one JSON line per utterance, stores it as DA-sft-<seed> and reuses it', async () => {
    const db = path.join(tmp, 'lab.db');
    const r = await sparring(['route', '--da', 'sft', '--seed', '1', '--epochs', '1', '--db', db], UTTERANCES);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/training DA-sft-1 by SFT/);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { text: string; tool: string; p: number; hypotheses: { intent: string; p: number }[] });
    expect(lines.map((l) => l.text)).toEqual([
      'There is a $45.20 charge from Uber that I never made',
      'My card keeps getting declined at the shop',
      'I want to close my account',
    ]);
    for (const l of lines) {
      expect(DOMAIN_TOOLS).toContain(l.tool);
      expect(l.p).toBeGreaterThan(0);
      expect(l.p).toBeLessThanOrEqual(1);
      expect(l.hypotheses).toHaveLength(3);
      expect(l.hypotheses[0]!.p).toBeGreaterThanOrEqual(l.hypotheses[1]!.p);
    }
    const sql = new Database(db, { readonly: true });
    expect(sql.prepare("SELECT role, source FROM checkpoints WHERE name = 'DA-sft-1'").get()).toEqual({ role: 'DA', source: 'sft' });
    sql.close();

    const again = await sparring(['route', '--da', 'sft', '--seed', '1', '--db', db], UTTERANCES);
    expect(again.stderr).toMatch(/using checkpoint DA-sft-1/);
    expect(again.stdout).toBe(r.stdout);
    const byName = await sparring(['route', '--da', 'DA-sft-1', '--db', db], UTTERANCES);
    expect(byName.stdout).toBe(r.stdout);
  });

  it('routes with the keyword router, and refuses an unknown SPEC with exit code 2', async () => {
    const [scripted, unknown] = await Promise.all([
      sparring(['route', '--da', 'scripted'], UTTERANCES),
      sparring(['route', '--da', 'DA9', '--db', path.join(tmp, 'none.db')], UTTERANCES),
    ]);
    expect(scripted.code, scripted.stderr).toBe(0);
    const lines = scripted.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { tool: string; hypotheses: unknown[] });
    expect(lines.map((l) => l.tool)).toEqual(['dispute_charge', 'check_card_status', 'transfer_to_human']);
    expect(lines.every((l) => l.hypotheses.length === 0)).toBe(true);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--da "DA9": no such policy/);
    expect(unknown.stdout).toBe('');
  });

  it('with empty stdin says nothing was read, and trains nothing', async () => {
    const db = path.join(tmp, 'empty.db');
    const r = await sparring(['route', '--da', 'sft', '--db', db], '\n  \n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/route: nothing was read from stdin/);
    expect(r.stderr).not.toMatch(/training DA-sft/);
  });

  // `script` gives the command a terminal for stdin, as a person typing would.
  const hasScript = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!hasScript)('at a terminal, says that it reads utterances from stdin', () => {
    const r = spawnSync('script', ['-qec', `${process.execPath} ${BIN} route --da scripted`, '/dev/null'], {
      input: 'my card was stolen\n\x04',
      encoding: 'utf8',
      env: { ...process.env, SPARRING_DB: path.join(tmp, 'tty.db') },
      timeout: 60_000,
    });
    expect(r.status, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/route: reading customer utterances from stdin, one per line/);
    expect(r.stdout).toMatch(/"tool":"transfer_to_human"/);
  });
});
