/**
 * Bounded load test of `sparring env serve` on loopback: S concurrent WebSocket sessions (default
 * 64) each play E episodes (default 50) as the scripted DA against a builtin CA; the server stores
 * every episode in a temporary lab. Checks that every episode completed and is stored exactly once
 * (one match per session, E episodes each, no id twice) and prints throughput and step latency
 * percentiles. The server and the clients share this process (and its cores).
 *
 *   npx tsx scripts/env-load.ts [--sessions 64] [--episodes 50] [--db /tmp/load.db]
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { deriveSeed } from '../core/random';
import { bankingDomain } from '../host/domain-files';
import { builtinCa, startBenchServer, wsEpisode } from '../host/env/bench';
import { EnvWsClient } from '../host/env/test-client';
import { openSqliteStore } from '../host/store/sqlite-store';

process.env.ORT_DISABLE_TELEMETRY ??= '1';
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const S = arg('--sessions', 64);
const E = arg('--episodes', 50);
const dbArg = process.argv.indexOf('--db');
const db = dbArg > 0 ? process.argv[dbArg + 1]! : path.join(mkdtempSync(path.join(os.tmpdir(), 'sparring-env-load-')), 'lab.db');

const domain = bankingDomain();
const store = openSqliteStore(db);
const server = await startBenchServer(domain, await builtinCa(domain), store);
const latencies: number[] = [];
const played: string[] = [];
let failed = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: S }, async (_, s) => {
    const c = await EnvWsClient.connect(server.wsUrl, { 'X-Model-Name': `load-${s}` });
    for (let e = 0; e < E; e++) {
      try {
        const r = await wsEpisode(c, deriveSeed(7, 'load', s, e));
        played.push(r.episodeId);
        for (const l of r.latencies) latencies.push(l);
      } catch (err) {
        failed++;
        process.stderr.write(`session ${s} episode ${e}: ${(err as Error).message}\n`);
      }
    }
    c.close();
  }),
);
const seconds = (performance.now() - t0) / 1000;
await server.close();

const sorted = latencies.sort((a, b) => a - b);
const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const storedIds = store.db.prepare("SELECT id FROM episodes WHERE match_id LIKE 'env-%'").pluck().all() as string[];
const perMatch = store.db.prepare("SELECT match_id, count(*) AS n FROM episodes WHERE match_id LIKE 'env-%' GROUP BY match_id").all() as {
  match_id: string;
  n: number;
}[];
const unfinished = store.db
  .prepare("SELECT count(*) FROM episodes WHERE match_id LIKE 'env-%' AND end_reason NOT IN ('end_call', 'turn_limit')")
  .pluck()
  .get() as number;
store.close();
const storedSet = new Set(storedIds);
const checks = {
  every_episode_completed: failed === 0 && played.length === S * E,
  stored_once: storedIds.length === storedSet.size && storedIds.length === played.length && played.every((id) => storedSet.has(id)),
  one_match_per_session: perMatch.length === S && perMatch.every((m) => m.n === E),
  none_half_written: unfinished === 0,
};
const doc = {
  sessions: S,
  episodes_per_session: E,
  episodes: played.length,
  failed,
  steps: latencies.length,
  seconds: Math.round(seconds * 10) / 10,
  episodes_per_s: Math.round((played.length / seconds) * 10) / 10,
  steps_per_s: Math.round((latencies.length / seconds) * 10) / 10,
  step_latency_ms: {
    p50: Math.round(pct(50) * 10) / 10,
    p95: Math.round(pct(95) * 10) / 10,
    p99: Math.round(pct(99) * 10) / 10,
    max: Math.round((sorted.at(-1) ?? NaN) * 10) / 10,
  },
  stored: storedIds.length,
  checks,
  db,
  load: os.loadavg().map((x) => Math.round(x * 10) / 10),
  cpus: os.availableParallelism(),
};
process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
process.exit(Object.values(checks).every(Boolean) ? 0 : 1);
