/**
 * Issue 51's config fuzzing (fast-check): a run config with hostile values in one to three of its
 * numeric fields (huge, negative, fractional, 1e308, 1e309 = Infinity) and sometimes an unknown
 * key ("__proto__", "constructor", a typo) is either refused by name before anything is stored (the
 * engine's RunService, as the app's runs/start calls it: the lab holds no run afterwards), or runs
 * as a one-match smoke run (`sparring run`, its own process) that ends cleanly or is still within
 * its memory bound when the time bound cuts it. Never a crash, never an out-of-memory.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRunConfig, RunConfigError } from '../core/coevolution/run-config';
import { PRESETS } from '../core/presets';
import { createRunService } from '../host/coevolution/service';

const BIN = path.resolve(__dirname, '..', 'bin', 'sparring.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-fuzz-'));

/** The quick preset cut to one match: what an accepted config is laid over. */
function base(): Record<string, unknown> {
  const c = structuredClone(PRESETS.smoke.config);
  Object.assign(c.stopping, { nMax: 1, nMin: 1 });
  c.arena.episodesPerScenario = 1;
  c.bootstrap.sft.epochs = 1;
  for (const step of [c.bootstrap.daWarmup, c.bootstrap.caPressure, c.gym.da, c.gym.ca]) step.steps = 2;
  return c;
}

/** Every numeric field of the base, and optional ones it leaves out. */
function numericPaths(v: unknown, at: string[] = []): string[][] {
  if (typeof v === 'number') return [at];
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => numericPaths(x, [...at, k]));
  return [];
}
const OPTIONAL = [
  ['gym', 'da', 'oversample'],
  ['gym', 'ca', 'temperature'],
  ['gym', 'matches'],
  ['gym', 'daOtherIntents'],
  ['daReward', 'formatValid'],
  ['caReward', 'invDaMisroute'],
  ['bootstrap', 'sft', 'camouflagedEpisodesPerIntent'],
  ['device', 'threads'],
];
const PATHS = [...numericPaths(base()), ...OPTIONAL];
const OBJECTS = [[], ['gym'], ['gym', 'da'], ['arena'], ['bootstrap', 'sft'], ['stopping'], ['eval']];

const value = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 1, max: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: -5, max: 0 }) },
  { weight: 3, arbitrary: fc.constantFrom(1e9, 100_000_000, 1e308, -1e308, 2 ** 53, Infinity, -Infinity, 0.5, 1e-320, 257, 1_001, 10_001) },
  { weight: 1, arbitrary: fc.double({ noNaN: true }) },
);
const mutation = fc.record({
  fields: fc.array(fc.tuple(fc.constantFrom(...PATHS), value), { minLength: 1, maxLength: 2 }),
  unknown: fc.option(fc.tuple(fc.constantFrom(...OBJECTS), fc.constantFrom('__proto__', 'constructor', 'typo', 'toString')), { freq: 6 }),
});

type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

/** The config's JSON text: Infinity written as 1e309 (what JSON.parse reads back as Infinity), an unknown key as an own key. */
function configText(m: Mutation): string {
  const c = base();
  for (const [at, v] of m.fields) {
    let o = c;
    for (const k of at.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>;
    o[at.at(-1)!] = v;
  }
  let text = JSON.stringify(c, (_k, v: unknown) => (v === Infinity ? '@INF@' : v === -Infinity ? '@-INF@' : v))
    .replaceAll('"@INF@"', '1e309')
    .replaceAll('"@-INF@"', '-1e309');
  if (m.unknown) {
    const [at, key] = m.unknown;
    // Inserted as text: an object literal's "__proto__" would set the prototype instead.
    const anchor = at.length === 0 ? '{' : `"${at.at(-1)}":{`;
    const i = at.length === 0 ? 0 : text.indexOf(anchor);
    text = `${text.slice(0, i + anchor.length)}"${key}":{"x":1},${text.slice(i + anchor.length)}`;
  }
  return text;
}

/** Resident memory of a process (kB), from /proc; 0 when it is gone. */
function rssKb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Time and memory bounds of one smoke run. */
const SMOKE_MS = 60_000;
const RSS_BOUND_KB = 2 * 1024 * 1024;

function smokeRun(config: string, db: string): Promise<{ code: number | null; signal: string | null; cut: boolean; maxRssKb: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--max-old-space-size=1536', BIN, 'run', '--config', config, '--db', db], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let maxRssKb = 0;
    let cut = false;
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-3000)));
    const sample = setInterval(() => (maxRssKb = Math.max(maxRssKb, rssKb(child.pid!))), 100);
    const timer = setTimeout(() => {
      cut = true;
      child.kill('SIGKILL');
    }, SMOKE_MS);
    child.on('exit', (code, signal) => {
      clearInterval(sample);
      clearTimeout(timer);
      resolve({ code, signal, cut, maxRssKb, stderr });
    });
  });
}

describe('config fuzzing', () => {
  it('every generated run config is refused by name before anything is stored, or runs within time and memory bounds', async () => {
    const lab = path.join(tmp, 'refusals.db');
    const service = createRunService({ dbPath: lab });
    const t0 = Date.now();
    const seen = { generated: 0, refused: 0, ran: 0, cut: 0, maxRssKb: 0 };
    const ran: string[] = [];
    try {
      await fc.assert(
        fc.asyncProperty(mutation, async (m) => {
          seen.generated++;
          const text = configText(m);
          let refusal: unknown = null;
          try {
            parseRunConfig(text, 'config');
          } catch (e) {
            refusal = e;
          }
          if (refusal !== null) {
            // The engine's runs/start refuses it the same way, storing nothing.
            await expect(service.start({ preset: 'custom', configJson: text, seed: 1 })).rejects.toThrow(RunConfigError);
            seen.refused++;
            expect(refusal, refusal instanceof Error ? refusal.message : 'not an Error').toBeInstanceOf(RunConfigError);
            const e = refusal as RunConfigError;
            // Named: a field, or (an unknown key at the top) the key itself.
            expect(e.field !== '' || /Unrecognized key/.test(e.problem), e.message).toBe(true);
            expect(service.list(), e.message).toEqual([]);
            return;
          }
          seen.ran++;
          ran.push(m.fields.map(([at, v]) => `${at.join('.')}=${v}`).join(' '));
          const file = path.join(tmp, `accepted-${seen.ran}.json`);
          writeFileSync(file, text);
          const r = await smokeRun(file, path.join(tmp, `smoke-${seen.ran}.db`));
          seen.maxRssKb = Math.max(seen.maxRssKb, r.maxRssKb);
          if (r.cut) seen.cut++;
          expect(r.maxRssKb, `${text}: RSS ${r.maxRssKb} kB`).toBeLessThan(RSS_BOUND_KB);
          expect(r.cut || r.code === 0, `${text}\n${r.stderr}`).toBe(true);
        }),
        { seed: 51, numRuns: 40, endOnFailure: true },
      );
    } finally {
      await service.close();
      process.stderr.write(
        `[config-fuzz] ${seen.generated} configs generated: ${seen.refused} refused by name, ${seen.ran} ran (${seen.cut} cut at ${SMOKE_MS / 1000} s), none crashed; ${((Date.now() - t0) / 1000).toFixed(1)} s; largest RSS ${(seen.maxRssKb / 1024).toFixed(0)} MiB; ran: ${ran.join(' | ')}\n`,
      );
    }
  }, 600_000);
});
