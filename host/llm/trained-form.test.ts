/**
 * One format for LLM roles (issue 50 items 1-2), checked with the real stack (.venv: TRL 1.13,
 * transformers 5.17) and a Qwen2.5 chat template over a tokenizer trained here:
 * - an episode stored in the lab, rendered through the training path (TRL's environment_factory
 *   loop: the row's prompt, the adapter's methods as tools, the model's call tokens and TRL's own
 *   tool-suffix tokens of the adapter's answers, against a live `env serve`) and through the
 *   playing path (the messages and tools `models/llm/da-messages.ts` gives an LLM DA), is the same
 *   token sequence at every decision point; the same for the customer's seat (the CA's `say` calls
 *   against an `env serve --role CA`, and the request `LlmCa` sends in the trained form,
 *   `models/llm/ca-messages.ts`);
 * - TRL's reward function gives each rollout the lab's stored r_DA for its episode id, and a
 *   rollout that stops scores exactly what the arena gives a DA doing the same, so GRPO's group
 *   advantage favours the finished rollout.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import type { CaObservation } from '../../core/world/environment';
import { CustomerEnvironment } from '../../core/world/environment';
import type { ChatBackend } from '../../models/llm/chat-backend';
import { LlmCa } from '../../models/llm/llm-ca';
import { ScriptedDa } from '../../core/agents/scripted-da';
import type { DaPolicy } from '../../core/agents/policy';
import { runEpisode } from '../../core/arena/match';
import { selectScenarios } from '../../core/arena/scenarios';
import { DEFAULT_CONFIG } from '../../core/config';
import { judgeEpisode } from '../../core/judge/judge';
import { deriveSeed, Rng } from '../../core/random';
import { transcriptOfEpisode } from '../../core/validators/validators';
import type { DaObservation } from '../../core/world/environment';
import { daMessages, daTools, nativeCall, wireFromNative } from '../../models/llm/da-messages';
import { parseDaOutput } from '../../core/wire';
import { ROOT, venvPython } from '../../test/support/python-env';
import { bankingDomain } from '../domain-files';
import { startEnvServer } from '../env/server';
import type { EnvServer } from '../env/server';
import { EnvWsClient } from '../env/test-client';
import { openSqliteStore } from '../store/sqlite-store';
import type { SqliteRunStore } from '../store/sqlite-store';

const run = promisify(execFile);
const domain = bankingDomain();
const scenarios = selectScenarios(domain, 'arena');
const STOP_TEXT = 'Let me look into that for you.';

interface CheckOutput {
  points: { move: number; train_tokens: number; play_tokens: number; identical: boolean; first_difference: number | null }[];
  tokens_compared: number;
  rollouts: { kind: 'finished' | 'stopped' | 'several' | 'unknown'; reward: number; episode_id: string; done: boolean; calls_left?: number; wire?: string }[];
  advantages: number[];
}

/** A DA that plays `first` moves of a recorded episode, then gives the same reply that is not a call at every turn left. */
class StoppingDa implements DaPolicy {
  readonly name = 'stopping';
  private k = 0;
  constructor(
    private readonly first: string[],
    private readonly then = STOP_TEXT,
  ) {}
  act(): string {
    return this.first[this.k++] ?? this.then;
  }
}

describe('the trained form under a chat template, and rewards under TRL', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sparring-trained-form-'));
  let store: SqliteRunStore;
  let server: EnvServer;

  beforeAll(async () => {
    store = openSqliteStore(path.join(dir, 'lab.db'));
    server = await startEnvServer({
      domain,
      config: DEFAULT_CONFIG,
      opponent: { role: 'CA', policy: new ScriptedCa(domain) },
      opponentSpec: 'scripted',
      scenarios,
      scenarioSet: 'arena',
      adversities: false,
      store,
    });
    await run(venvPython(), [path.join(ROOT, 'trainers', 'tiny_qwen2.py'), path.join(dir, 'tok'), '--tokenizer-only'], { timeout: 300_000 });
  }, 360_000);
  afterAll(async () => {
    await server.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('renders a stored episode to the same tokens in training and in play; TRL rewards are the lab rewards; stopping is never free', async () => {
    // The stored episode: the scripted DA over the WebSocket, stored by the server like any learner's.
    const scenario = scenarios.find((s) => s.expectedTool === 'dispute_charge') ?? scenarios[0]!;
    const seed = deriveSeed(5, scenario.id, 1);
    const client = await EnvWsClient.connect(server.wsUrl, { 'X-Model-Name': 'scripted-over-ws' });
    const scripted = new ScriptedDa();
    const rng = new Rng(seed).fork('da');
    let m = await client.send('reset', { seed, scenario: scenario.id });
    const phone = (m.data.observation as { caller: { phone: string } }).caller.phone;
    while (!(m.data.done as boolean)) {
      const o = m.data.observation as Record<string, unknown>;
      const view: DaObservation = {
        caller: { phone },
        turns: o.turns as DaObservation['turns'],
        daSteps: o.da_steps as number,
        maxDaTurns: o.max_da_turns as number,
      };
      m = await client.send('step', { message: scripted.act(view, rng) });
    }
    client.close();
    const storedId = (m.data.observation as { metadata: { episode_id: string } }).metadata.episode_id;
    const stored = store.getEpisode(storedId)!;
    const turns = transcriptOfEpisode(stored).turns;

    // The playing path: the DA's request before each of its moves.
    const moves: { name: string; arguments: Record<string, unknown> }[] = [];
    const play: { messages: unknown[]; tools: unknown[] }[] = [];
    turns.forEach((t, i) => {
      if (t.role !== 'agent') return;
      if (!t.action) throw new Error(`turn ${i} of the scripted episode does not parse`);
      const obs: DaObservation = { caller: { phone }, turns: turns.slice(0, i), daSteps: moves.length, maxDaTurns: DEFAULT_CONFIG.arena.maxDaTurns };
      play.push({ messages: daMessages(obs, 'native'), tools: daTools() });
      moves.push(nativeCall(t.action));
    });
    expect(moves.length).toBeGreaterThanOrEqual(4);
    const spec = path.join(dir, 'spec.json');
    // Replies that are not one move (after the first move): two calls at once, and a function the DA does not have.
    const badReplies = { several: [moves[1]!, moves[2]!], unknown: [{ name: 'refund_everything', arguments: { thinking: 'just refund it', amount: 5 } }] };
    writeFileSync(
      spec,
      JSON.stringify({ url: server.url, seed, scenario: scenario.id, moves, play, stop_after: 1, stop_text: STOP_TEXT, bad_replies: badReplies }),
    );
    const { stdout } = await run(venvPython(), [path.join(ROOT, 'trainers', 'check_trained_form.py'), spec, path.join(dir, 'tok')], {
      timeout: 180_000,
      env: { ...process.env, TRL_EXPERIMENTAL_SILENCE: '1' },
    });
    const out = JSON.parse(stdout.trim().split('\n').at(-1)!) as CheckOutput;

    // Token for token, at every decision point.
    expect(out.points).toHaveLength(moves.length);
    for (const p of out.points) expect(p, `decision point ${p.move}`).toMatchObject({ identical: true, first_difference: null });
    expect(out.tokens_compared).toBeGreaterThan(500);

    // TRL's reward = the lab's stored r_DA of that episode id, and the same episode as the recorded one.
    const [finished, stopped, ...bad] = out.rollouts;
    expect(finished!.done).toBe(true);
    const again = store.getEpisode(finished!.episode_id)!;
    expect(finished!.reward).toBe(again.rDa);
    expect(again.rDa).toBe(stored.rDa);
    expect(again.turns.map((t) => t.text)).toEqual(stored.turns.map((t) => t.text));
    const stopEpisode = store.getEpisode(stopped!.episode_id)!;
    expect(stopped!.reward).toBe(stopEpisode.rDa);

    // Stopping scores what the arena gives the same behaviour: the arena's own episode, in process.
    const arena = await runEpisode({
      domain,
      scenario,
      seed,
      da: new StoppingDa(turns.flatMap((t) => (t.role === 'agent' ? [t.raw] : [])).slice(0, 1)),
      ca: new ScriptedCa(domain),
      judge: judgeEpisode,
      config: DEFAULT_CONFIG,
      matchId: 'M',
      index: 0,
    });
    expect(stopped!.reward).toBe(arena.record.rDa);
    expect(stopEpisode.turns.map((t) => t.text)).toEqual(arena.record.turns.map((t) => t.text));
    expect(stopped!.reward).toBeLessThan(finished!.reward);
    expect(out.advantages[0]!).toBeGreaterThan(0);
    expect(out.advantages[1]!).toBeLessThan(0);

    // A reply of several calls, or of an unknown function, reaches the world as the arena's mapping
    // makes it (not TRL's silent {"error"} or several moves) and scores as the arena scores it.
    expect(bad.map((b) => b.kind)).toEqual(['several', 'unknown']);
    for (const b of bad) {
      const calls = badReplies[b.kind as keyof typeof badReplies];
      expect(b.calls_left, b.kind).toBe(0);
      // An unknown function: the arena's mapping of the call. Several calls: TRL 1.13's parser already
      // reads the reply as text (no call); either way the world gets one unparseable turn.
      if (b.kind === 'unknown') expect(b.wire, b.kind).toBe(wireFromNative('', calls));
      else expect(parseDaOutput(b.wire!).ok, b.kind).toBe(false);
      expect(b.done, b.kind).toBe(true);
      const episode = store.getEpisode(b.episode_id)!;
      expect(b.reward, b.kind).toBe(episode.rDa);
      const played = await runEpisode({
        domain,
        scenario,
        seed,
        da: new StoppingDa(turns.flatMap((t) => (t.role === 'agent' ? [t.raw] : [])).slice(0, 1), b.wire),
        ca: new ScriptedCa(domain),
        judge: judgeEpisode,
        config: DEFAULT_CONFIG,
        matchId: 'M',
        index: 0,
      });
      expect(b.reward, b.kind).toBe(played.record.rDa);
      expect(episode.turns.map((t) => t.text)).toEqual(played.record.turns.map((t) => t.text));
      expect(b.reward, b.kind).toBeLessThan(finished!.reward);
    }
    console.log(
      `trained form: ${out.points.length} decision points identical, ${out.tokens_compared} tokens; TRL rewards = lab rewards ${out.rollouts.filter((r) => r.reward === store.getEpisode(r.episode_id)!.rDa).length}/${out.rollouts.length}; finished r_DA ${finished!.reward}, stopped ${stopped!.reward}, ${bad.map((b) => `${b.kind} calls ${b.reward}`).join(', ')}`,
    );
  }, 300_000);

  it("renders a stored episode's customer decision points to the same tokens in training (TRL, say) and in play (LlmCa, native)", async () => {
    const caServer = await startEnvServer({
      domain,
      config: DEFAULT_CONFIG,
      opponent: { role: 'DA', policy: new ScriptedDa() },
      opponentSpec: 'scripted',
      scenarios,
      scenarioSet: 'arena',
      adversities: false,
      store,
    });
    try {
      // The stored episode: the scripted CA over the WebSocket, stored by the server like any learner's.
      const scenario = scenarios.find((s) => s.expectedTool === 'dispute_charge') ?? scenarios[0]!;
      const seed = deriveSeed(7, scenario.id, 1);
      const client = await EnvWsClient.connect(caServer.wsUrl, { 'X-Model-Name': 'scripted-ca-over-ws' });
      const scripted = new ScriptedCa(domain);
      const rng = new Rng(seed).fork('ca');
      let m = await client.send('reset', { seed, scenario: scenario.id });
      while (!(m.data.done as boolean)) {
        const o = m.data.observation as Record<string, unknown> & CaObservation;
        const view: CaObservation = { intent: o.intent, situation: o.situation, facts: o.facts, name: o.name, dialogue: o.dialogue };
        m = await client.send('step', { message: scripted.speak(view, rng) });
      }
      client.close();
      const storedId = (m.data.observation as { metadata: { episode_id: string } }).metadata.episode_id;
      const stored = store.getEpisode(storedId)!;
      const turns = transcriptOfEpisode(stored).turns;

      // The playing path: the request LlmCa (the trained form) sends before each customer line, the
      // observation from the stored turns replayed in a fresh world.
      const world = new CustomerEnvironment(DEFAULT_CONFIG.arena.maxDaTurns);
      world.reset(scenario, seed);
      const noServer: ChatBackend = { id: 'none', model: 'none', maxConcurrency: 1, complete: () => Promise.reject(new Error('not called')) };
      const ca = new LlmCa(noServer, { mode: 'native' });
      const moves: { name: string; arguments: Record<string, unknown> }[] = [];
      const play: { messages: unknown[]; tools: unknown[] }[] = [];
      for (const t of turns) {
        if (t.role === 'customer') {
          const req = ca.request(world.observeCustomer(), 0);
          play.push({ messages: req.messages, tools: req.tools! });
          moves.push({ name: 'say', arguments: { utterance: t.text } });
          world.step({ role: 'customer', text: t.text });
        } else world.step({ role: 'agent', raw: t.raw });
      }
      expect(world.transcript().turns.map((t) => (t.role === 'customer' ? t.text : t.raw))).toEqual(turns.map((t) => (t.role === 'customer' ? t.text : t.raw)));
      expect(moves.length).toBeGreaterThanOrEqual(2);
      const spec = path.join(dir, 'spec-ca.json');
      writeFileSync(spec, JSON.stringify({ role: 'CA', url: caServer.url, seed, scenario: scenario.id, moves, play }));
      const { stdout } = await run(venvPython(), [path.join(ROOT, 'trainers', 'check_trained_form.py'), spec, path.join(dir, 'tok')], {
        timeout: 180_000,
        env: { ...process.env, TRL_EXPERIMENTAL_SILENCE: '1' },
      });
      const out = JSON.parse(stdout.trim().split('\n').at(-1)!) as CheckOutput;
      expect(out.points).toHaveLength(moves.length);
      for (const p of out.points) expect(p, `customer decision point ${p.move}`).toMatchObject({ identical: true, first_difference: null });
      expect(out.tokens_compared).toBeGreaterThan(300);
      // TRL's reward = the lab's stored r_CA of that episode id, and the same episode as the recorded one.
      const [finished] = out.rollouts;
      expect(finished!.done).toBe(true);
      const again = store.getEpisode(finished!.episode_id)!;
      expect(finished!.reward).toBe(again.rCa);
      expect(again.rCa).toBe(stored.rCa);
      expect(again.turns.map((t) => t.text)).toEqual(stored.turns.map((t) => t.text));
      console.log(
        `trained form (CA): ${out.points.length} decision points identical, ${out.tokens_compared} tokens; TRL reward ${finished!.reward} = lab r_CA`,
      );
    } finally {
      await caServer.close();
    }
  }, 300_000);
});

describe('the TRL adapter after an idle close', () => {
  it('reopens the session at the next reset (the server closes idle sockets with 4408)', async () => {
    const server = await startEnvServer({
      domain,
      config: DEFAULT_CONFIG,
      opponent: { role: 'CA', policy: new ScriptedCa(domain) },
      opponentSpec: 'scripted',
      scenarios,
      scenarioSet: 'arena',
      adversities: false,
      store: null,
      idleTimeoutMs: 300,
    });
    try {
      const script = [
        'import sys, time, json',
        `sys.path.insert(0, ${JSON.stringify(path.join(ROOT, 'trainers'))})`,
        'import trl_adapter',
        `trl_adapter.configure(url=${JSON.stringify(server.url)})`,
        'env = trl_adapter.SparringDaEnv()',
        'env.reset(seed=1)',
        'time.sleep(1.5)',
        'first = env.reset(seed=2)',
        'print(json.dumps({"reconnects": env.session.reconnects, "returned": first, "turns": len(env.observation["turns"])}))',
      ].join('\n');
      const { stdout } = await run(venvPython(), ['-c', script], { timeout: 120_000 });
      expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({ reconnects: 1, returned: null, turns: 1 });
    } finally {
      await server.close();
    }
  }, 180_000);
});
