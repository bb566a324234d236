/**
 * Speed of the environment server (`sparring bench --only env`) and its bounded load test
 * (scripts/env-load.ts): learner steps per second over the WebSocket and over HTTP against a
 * builtin CA (an untrained one: its forward pass costs what a trained one's does), and the same
 * episodes played in process (LearnerEpisode), whose ratio is the protocol's overhead.
 */
import { performance } from 'node:perf_hooks';
import { ScriptedDa } from '../../core/agents/scripted-da';
import type { CaPolicy } from '../../core/agents/policy';
import { DEFAULT_CONFIG } from '../../core/config';
import { selectScenarios } from '../../core/arena/scenarios';
import { LearnerEpisode } from '../../core/env/learner-episode';
import type { Domain } from '../../core/domain/types';
import { judgeEpisode } from '../../core/judge/judge';
import { deriveSeed, Rng } from '../../core/random';
import type { RunStore } from '../../core/store/port';
import type { DaObservation } from '../../core/world/environment';
import { BuiltinCa } from '../../models/builtin-ca';
import { CaModel } from '../../models/ca-model';
import { startEnvServer } from './server';
import type { EnvServer } from './server';
import { EnvWsClient } from './test-client';

export interface EnvBenchOptions {
  rounds?: number;
  roundMs?: number;
  onFigure?: (name: string) => void;
}

export interface EnvBench {
  inProcessStepsPerS: number;
  wsStepsPerS: number;
  httpStepsPerS: number;
  wsOverInProcess: number;
  httpOverInProcess: number;
}

/** The DA's view as the server sends it, back in the policy port's shape. */
export function daViewOf(obs: Record<string, unknown>): DaObservation {
  return {
    caller: obs.caller as DaObservation['caller'],
    turns: obs.turns as DaObservation['turns'],
    daSteps: obs.da_steps as number,
    maxDaTurns: obs.max_da_turns as number,
  };
}

export async function builtinCa(domain: Domain, seed = 1): Promise<CaPolicy> {
  return new BuiltinCa(await CaModel.create(domain.taxonomy, { seed }), domain.bank, { name: 'CA-builtin' });
}

export async function startBenchServer(domain: Domain, ca: CaPolicy, store: RunStore | null): Promise<EnvServer> {
  return startEnvServer({
    domain,
    config: DEFAULT_CONFIG,
    opponent: { role: 'CA', policy: ca },
    opponentSpec: ca.name,
    scenarios: selectScenarios(domain, 'arena'),
    scenarioSet: 'arena',
    adversities: false,
    store,
    maxSessions: 4096,
  });
}

/** One episode over a WebSocket session with the scripted DA; returns its learner steps and their latencies (ms). */
export async function wsEpisode(c: EnvWsClient, seed: number): Promise<{ steps: number; latencies: number[]; episodeId: string }> {
  const da = new ScriptedDa();
  const rng = new Rng(seed).fork('da');
  // A reset's seed is OpenEnv's (>= 0), read modulo 2^32: the same episode as the signed arena seed.
  let m = await c.send('reset', { seed: seed >>> 0 });
  if (m.type !== 'observation') throw new Error(`reset: ${JSON.stringify(m.data)}`);
  const latencies: number[] = [];
  while (!(m.data.done as boolean)) {
    const action = { message: da.act(daViewOf(m.data.observation as Record<string, unknown>), rng) };
    const t = performance.now();
    m = await c.send('step', action);
    latencies.push(performance.now() - t);
    if (m.type !== 'observation') throw new Error(`step: ${JSON.stringify(m.data)}`);
  }
  return { steps: latencies.length, latencies, episodeId: (m.data.observation as { metadata: { episode_id: string } }).metadata.episode_id };
}

async function httpEpisode(url: string, seed: number, session: string | null): Promise<{ steps: number; session: string }> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(url + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const doc = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`${path}: ${JSON.stringify(doc)}`);
    return { doc, session: res.headers.get('x-session-id')! };
  };
  const da = new ScriptedDa();
  const rng = new Rng(seed).fork('da');
  let r = await post('/reset', session ? { seed: seed >>> 0, session_id: session } : { seed: seed >>> 0 });
  let steps = 0;
  while (!(r.doc.done as boolean)) {
    r = await post('/step', { session_id: r.session, action: { message: da.act(daViewOf(r.doc.observation as Record<string, unknown>), rng) } });
    steps++;
  }
  return { steps, session: r.session };
}

async function inProcessEpisode(domain: Domain, ca: CaPolicy, seed: number): Promise<number> {
  const scenarios = selectScenarios(domain, 'arena');
  const scenario = new Rng(seed).fork('env-scenario').pick(scenarios);
  const ep = await LearnerEpisode.start({
    domain,
    config: DEFAULT_CONFIG,
    judge: judgeEpisode,
    scenario,
    seed,
    opponent: { role: 'CA', policy: ca },
    matchId: 'bench',
    index: 0,
  });
  const da = new ScriptedDa();
  const rng = new Rng(seed).fork('da');
  while (!ep.done) {
    const o = ep.observe();
    if (o.role !== 'DA') throw new Error('bench: expected the DA to move');
    await ep.act(da.act(o.view, rng));
  }
  return ep.steps;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Rounds of at least `roundMs`, each playing whole episodes; the median steps per second. */
async function rate(rounds: number, roundMs: number, episode: (k: number) => Promise<number>): Promise<number> {
  let k = 0;
  await episode(k++); // warm-up
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    let steps = 0;
    while (performance.now() - t0 < roundMs) steps += await episode(k++);
    rates.push(steps / ((performance.now() - t0) / 1000));
  }
  return median(rates);
}

export async function benchEnv(domain: Domain, opts: EnvBenchOptions = {}): Promise<EnvBench> {
  const rounds = opts.rounds ?? 7;
  const roundMs = opts.roundMs ?? 200;
  const ca = await builtinCa(domain);
  const seed = (k: number) => deriveSeed(1, 'env-bench', k);
  const inProcess = await rate(rounds, roundMs, (k) => inProcessEpisode(domain, ca, seed(k)));
  opts.onFigure?.('env in process');
  const server = await startBenchServer(domain, ca, null);
  try {
    const c = await EnvWsClient.connect(server.wsUrl);
    const ws = await rate(rounds, roundMs, async (k) => (await wsEpisode(c, seed(k))).steps);
    c.close();
    opts.onFigure?.('env WebSocket');
    let session: string | null = null;
    const http = await rate(rounds, roundMs, async (k) => {
      const r = await httpEpisode(server.url, seed(k), session);
      session = r.session;
      return r.steps;
    });
    opts.onFigure?.('env HTTP');
    return { inProcessStepsPerS: inProcess, wsStepsPerS: ws, httpStepsPerS: http, wsOverInProcess: ws / inProcess, httpOverInProcess: http / inProcess };
  } finally {
    await server.close();
  }
}
