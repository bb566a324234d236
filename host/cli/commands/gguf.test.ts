/**
 * Local GGUF models end to end with the real bin (issue 14): a tiny random-weight llama file
 * written here (no download), saved with `models add NAME --gguf`, round-tripped by `models test`,
 * and played against from stdin with `play --seat customer --da gguf:FILE`; the calls land in the
 * lab like endpoint calls. Skipped, with the reason, only where node-llama-cpp's prebuilt binary
 * cannot load on this platform.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ggufUnavailable } from '../../../models/llm/gguf-backend';
import { writeTinyGguf } from '../../../models/llm/tiny-gguf';

const unavailable = await ggufUnavailable('cpu');
if (unavailable) console.warn(`gguf.test.ts skipped: ${unavailable}`);

const BIN = path.resolve(__dirname, '..', '..', '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-gguf-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const db = path.join(tmp, 'lab.db');
const file = path.join(tmp, 'tiny.gguf');
// The CPU and one thread: the tiny model gains nothing from more, and a busy machine's spinning threads cost seconds per token.
const env = { ...process.env, ORT_DISABLE_TELEMETRY: '1', SPARRING_GGUF_GPU: 'cpu', SPARRING_GGUF_THREADS: '1' };
const sparring = (args: string[], input = '') => spawnSync(process.execPath, [BIN, '--db', db, ...args], { input, encoding: 'utf8', env });

describe.skipIf(unavailable !== null)('local GGUF models through the CLI', () => {
  it('models add NAME --gguf saves the file by path and hash; models test does a round trip that parses', () => {
    writeTinyGguf(file, { contextLength: 32768 });
    const add = sparring(['models', 'add', 'tiny', '--gguf', file, '--gpu', 'cpu', '--threads', '1', '--context-size', '16384']);
    expect(add.status, add.stderr).toBe(0);
    expect(add.stdout).toMatch(/^saved GGUF model tiny \(.*tiny\.gguf, SHA-256 [0-9a-f]{16}…, gpu cpu, context 16384, 1 at once\)/);
    expect(sparring(['models', 'add', 'tiny', '--gguf', file]).stderr).toMatch(/exists already/);
    expect(sparring(['models', 'add', 'other', '--gguf', path.join(tmp, 'missing.gguf')]).stderr).toMatch(/--gguf: no such file .*missing\.gguf/);
    expect(sparring(['models', 'add', 'other', '--gguf', file, '--model', 'x']).stderr).toMatch(/without --base-url and --model/);
    expect(sparring(['models', 'add', 'many', '--gguf', file, '--sequences', '65']).stderr).toMatch(/sequences must be a whole number from 1 to 64, got 65/);
    expect(sparring(['models', 'add', 'many', '--gguf', file, '--sequences', '0']).stderr).toMatch(/--sequences/);
    const two = sparring(['models', 'add', 'two', '--gguf', file, '--gpu', 'cpu', '--threads', '1', '--context-size', '4096', '--sequences', '2']);
    expect(two.status, two.stderr).toBe(0);
    expect(sparring(['models', 'list']).stdout).toMatch(/^tiny +\S*tiny\.gguf +[0-9a-f]{16}… +cpu +16384 +1 +1$/m);
    expect(sparring(['models', 'list']).stdout).toMatch(/^two +\S*tiny\.gguf +[0-9a-f]{16}… +cpu +4096 +1 +2$/m);

    const test = sparring(['--json', 'models', 'test', 'tiny']);
    expect(test.status, test.stderr).toBe(0);
    const r = JSON.parse(test.stdout) as {
      gpu: string;
      model: string;
      tokensIn: number;
      tokensOut: number;
      tokensPerS: number;
      parsed: unknown;
      finishReason: string;
    };
    expect(r.gpu).toBe('cpu');
    expect(r.model).toMatch(/^tiny\.gguf@sha256:[0-9a-f]{16}$/);
    expect(r.tokensIn).toBeGreaterThan(100);
    expect(r.tokensOut).toBeGreaterThan(0);
    expect(r.tokensPerS).toBeGreaterThan(0);
    expect(r.parsed).not.toBeNull();
    expect(r.finishReason).toBe('stop');
  }, 180_000);

  it('play --seat customer --da gguf:FILE: the person types, the GGUF DA answers in turns that parse; stored with its calls', () => {
    const out = sparring(
      ['--seed', '3', 'play', '--seat', 'customer', '--da', `gguf:${file}`, '--player', 'Ann'],
      'Hi, my card was declined at the pump.\nThe card ends in 6084.\nThanks.\nBye.\n',
    );
    expect(out.status, out.stderr).toBe(0);
    expect(out.stderr).toMatch(/tiny\.gguf@sha256:[0-9a-f]{16} on cpu/);
    expect(out.stdout).toMatch(/against gguf:/);
    expect(out.stdout).not.toMatch(/unparseable/);
    const lab = new Database(db, { readonly: true });
    try {
      const calls = lab.prepare("SELECT endpoint, model, tokens_in, tokens_out, latency_ms FROM llm_calls WHERE endpoint LIKE 'gguf:%'").all() as {
        model: string;
        tokens_in: number;
        tokens_out: number;
        latency_ms: number;
      }[];
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.every((c) => /^tiny\.gguf@sha256:/.test(c.model) && c.tokens_in > 0 && c.tokens_out > 0 && c.latency_ms > 0)).toBe(true);
      const agent = lab.prepare("SELECT t.parse_error FROM turns t JOIN human_episodes h ON h.episode_id = t.episode_id WHERE t.role = 'agent'").all() as {
        parse_error: string | null;
      }[];
      expect(agent.length).toBeGreaterThan(0);
      expect(agent.every((t) => t.parse_error === null)).toBe(true);
    } finally {
      lab.close();
    }
  }, 180_000);
});
