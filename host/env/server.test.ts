/**
 * The OpenEnv server: an episode played over the socket by the builtin DA is the arena's episode
 * of that seed (stored in the lab as such), sessions are independent, bad input is answered with
 * an error naming the problem while the session and the server go on, idle sessions close.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import { ScriptedDa } from '../../core/agents/scripted-da';
import { DEFAULT_CONFIG } from '../../core/config';
import { runEpisode } from '../../core/arena/match';
import { selectScenarios } from '../../core/arena/scenarios';
import { judgeEpisode } from '../../core/judge/judge';
import { deriveSeed, Rng } from '../../core/random';
import type { EpisodeRecord } from '../../core/store/port';
import type { DaObservation } from '../../core/world/environment';
import { BuiltinCa } from '../../models/builtin-ca';
import { BuiltinDa } from '../../models/builtin-da';
import { CaModel } from '../../models/ca-model';
import { DaModel } from '../../models/da-model';
import { bankingDomain } from '../domain-files';
import { openSqliteStore } from '../store/sqlite-store';
import type { SqliteRunStore } from '../store/sqlite-store';
import { startEnvServer } from './server';
import type { EnvServer } from './server';
import { EnvWsClient } from './test-client';

const domain = bankingDomain();
const scenarios = selectScenarios(domain, 'arena');
const session = { intraOpNumThreads: 1 };

/** The DA's view as the server sent it, back into the policy port's shape. */
function daView(obs: Record<string, unknown>): DaObservation {
  return {
    caller: obs.caller as DaObservation['caller'],
    turns: obs.turns as DaObservation['turns'],
    daSteps: obs.da_steps as number,
    maxDaTurns: obs.max_da_turns as number,
  };
}

/** Strip what differs between an arena match and a server session: the match and the position. */
const sameEpisode = (e: EpisodeRecord) => ({ ...e, id: '', matchId: '', index: 0 });

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, session: res.headers.get('x-session-id') };
}

describe('env server (DA learns against the builtin CA)', () => {
  let store: SqliteRunStore;
  let server: EnvServer;
  let da: BuiltinDa;
  let ca: BuiltinCa;

  beforeAll(async () => {
    const daModel = await DaModel.create({ intents: domain.taxonomy.map((e) => ({ intent: e.intent, tool: e.tool })), seed: 3, session });
    da = new BuiltinDa(daModel, { name: 'DA-test', mode: 'sample' });
    ca = new BuiltinCa(await CaModel.create(domain.taxonomy, { seed: 4, session }), domain.bank, { name: 'CA0' });
    store = openSqliteStore(':memory:');
    server = await startEnvServer({
      domain,
      config: DEFAULT_CONFIG,
      opponent: { role: 'CA', policy: ca },
      opponentSpec: 'CA0',
      scenarios,
      scenarioSet: 'arena',
      adversities: false,
      store,
      maxBodyBytes: 4096,
      idleTimeoutMs: 60_000,
    });
  });
  afterAll(async () => {
    await server.close();
    store.close();
  });

  it('an episode played over the WebSocket by the builtin DA equals the in-process arena episode, and is stored once', async () => {
    const client = await EnvWsClient.connect(server.wsUrl, { 'X-Model-Name': 'builtin-over-ws' });
    for (const scenario of scenarios.slice(0, 5)) {
      const seed = deriveSeed(11, scenario.id, 2);
      const ref = await runEpisode({ domain, scenario, seed, da, ca, judge: judgeEpisode, config: DEFAULT_CONFIG, matchId: 'M', index: 0 });
      const rng = new Rng(seed).fork('da');
      // The arena's seed is signed 32-bit; OpenEnv's reset seed is >= 0, read modulo 2^32.
      let m = await client.send('reset', { seed: seed >>> 0, scenario: scenario.id });
      expect(m.type, JSON.stringify(m.data)).toBe('observation');
      expect(m.data.reward).toBeNull();
      let steps = 0;
      while (!(m.data.done as boolean)) {
        const obs = m.data.observation as Record<string, unknown>;
        m = await client.send('step', { message: await da.act(daView(obs), rng) });
        expect(m.type, JSON.stringify(m.data)).toBe('observation');
        steps++;
      }
      const meta = (m.data.observation as { metadata: Record<string, unknown> }).metadata;
      expect(m.data.reward).toBe(ref.record.rDa);
      expect(meta.terms).toStrictEqual(ref.record.daTerms);
      expect(meta.judge).toStrictEqual(ref.record.judge);
      expect(steps).toBe(ref.record.turns.filter((t) => t.role === 'agent').length);
      const stored = store.getEpisode(meta.episode_id as string)!;
      expect(sameEpisode(stored)).toStrictEqual(sameEpisode(ref.record));
    }
    const state = (await client.send('state')).data;
    expect(state.episodes_stored).toBe(5);
    const match = store.getMatch(state.match_id as string)!;
    expect(match.daSpec).toBe('env:builtin-over-ws');
    expect(match.caSpec).toBe('CA0');
    expect(store.countEpisodes({ matchId: match.id })).toBe(5);
    expect(JSON.parse(match.configJson).env).toMatchObject({ session: state.session_id, model: 'builtin-over-ws', learner: 'DA' });
    client.close();
  });

  it('plays sessions at once, each independent: interleaved sessions give what one alone gives', async () => {
    const scenario = scenarios[3]!;
    const play = async (client: EnvWsClient, seed: number) => {
      const scripted = new ScriptedDa();
      const rng = new Rng(seed).fork('da');
      let m = await client.send('reset', { seed, scenario: scenario.id });
      while (!(m.data.done as boolean)) m = await client.send('step', { message: scripted.act(daView(m.data.observation as Record<string, unknown>), rng) });
      return (m.data.observation as { metadata: Record<string, unknown> }).metadata;
    };
    const clients = await Promise.all([1, 2, 3, 4].map(() => EnvWsClient.connect(server.wsUrl)));
    const together = await Promise.all(clients.map((c, i) => play(c, 100 + (i % 2))));
    const alone = await play(clients[0]!, 100);
    expect(new Set(together.map((t) => t.session_id)).size).toBe(4);
    expect(together[0]!.terms).toStrictEqual(alone.terms);
    expect(together[2]!.terms).toStrictEqual(alone.terms);
    expect(together[1]!.judge).toStrictEqual(together[3]!.judge);
    for (const c of clients) c.close();
  });

  it('plays over HTTP with OpenAI-style tool calls, one session per /reset', async () => {
    const r = await post(`${server.url}/reset`, { seed: 5, scenario: 'card-declined', model: 'http-client' });
    expect(r.status).toBe(200);
    const sid = r.session!;
    expect((r.body.observation as { metadata: { session_id: string } }).metadata.session_id).toBe(sid);
    const phone = (r.body.observation as { caller: { phone: string } }).caller.phone;
    let s = await post(`${server.url}/step`, {
      session_id: sid,
      action: { tool_call: { name: 'lookup_account', arguments: JSON.stringify({ phone }) }, thinking: 'verify first' },
    });
    expect(s.status).toBe(200);
    const obs = s.body.observation as { turns: { toolResult?: { ok: boolean; data: { cards: { card_id: string }[] } } }[] };
    const card = obs.turns.at(-1)!.toolResult!.data.cards[0]!.card_id;
    expect(
      (
        await post(
          `${server.url}/step`,
          { action: { tool_calls: [{ type: 'function', function: { name: 'check_card_status', arguments: { card_id: card } } }], thinking: 'card problem' } },
          { 'X-Session-Id': sid },
        )
      ).status,
    ).toBe(200);
    s = await post(`${server.url}/step`, {
      session_id: sid,
      action: { tool_call: { name: 'speak', arguments: { message: 'Your card is blocked; I can help.' } }, thinking: 'explain' },
    });
    while (!s.body.done)
      s = await post(`${server.url}/step`, { session_id: sid, action: { tool_call: { name: 'end_call', arguments: '{}' }, thinking: 'done' } });
    const meta = (s.body.observation as { metadata: Record<string, unknown> }).metadata;
    expect(meta.stored).toBe(true);
    expect(s.body.reward).toBe(meta.r_da);
    const st = await fetch(`${server.url}/state?session_id=${sid}`).then((x) => x.json() as Promise<Record<string, unknown>>);
    expect(st).toMatchObject({ session_id: sid, done: true, episodes_stored: 1, model: 'http-client' });
    expect((st.last_episode as { r_da: number }).r_da).toBe(meta.r_da);
    expect(store.getEpisode(meta.episode_id as string)?.rDa).toBe(meta.r_da);
  });

  it('answers bad WebSocket input with an error naming it, and the session goes on', async () => {
    const c = await EnvWsClient.connect(server.wsUrl);
    const err = async (p: Promise<{ type: string; data: Record<string, unknown> }>, code: string, re: RegExp) => {
      const m = await p;
      expect(m.type).toBe('error');
      expect(m.data.code).toBe(code);
      expect(m.data.message).toMatch(re);
    };
    await err(c.sendRaw('{"type": "reset",'), 'INVALID_JSON', /Invalid JSON/);
    await err(c.send('jump'), 'UNKNOWN_TYPE', /Unknown message type: "jump"/);
    await err(c.send('step', { message: 'hi' }), 'VALIDATION_ERROR', /step before reset/);
    await err(
      c.send('reset', { scenario: 'no-such-scenario' }),
      'VALIDATION_ERROR',
      /unknown scenario "no-such-scenario"; this server plays: dispute-unrecognized/,
    );
    // Refused as OpenEnv's pydantic models refuse them, with the field in "errors".
    await err(c.send('reset', { seed: 1.5 }), 'VALIDATION_ERROR', /data\.seed: Input should be a valid integer/);
    const negative = await c.send('reset', { seed: -1 });
    expect(negative.data).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ type: 'greater_than_equal', loc: ['data', 'seed'], msg: 'Input should be greater than or equal to 0', input: -1, ctx: { ge: 0 } }],
    });
    await err(c.send('reset', { seed: 1, sede: 2 }), 'VALIDATION_ERROR', /data\.sede: extra inputs are not permitted/);
    await err(c.sendRaw('{"type": "state", "data": {}}'), 'VALIDATION_ERROR', /^data: extra inputs are not permitted/);
    await err(c.send('reset', { episode_id: 'e'.repeat(256) }), 'VALIDATION_ERROR', /data\.episode_id: String should have at most 255 characters/);
    expect((await c.send('reset', { seed: 1, scenario: 'dispute-duplicate' })).type).toBe('observation');
    await err(
      c.send('step', { tool_call: { name: 'launch_rocket', arguments: '{}' } }),
      'VALIDATION_ERROR',
      /unknown tool "launch_rocket"; tools: lookup_account/,
    );
    await err(c.send('step', { tool_call: { name: 'lookup_account', arguments: '{phone' } }), 'VALIDATION_ERROR', /"arguments" is not valid JSON/);
    await err(c.send('step', { message: 'x'.repeat(5000) }), 'VALIDATION_ERROR', /exceeds the limit of 4096 bytes/);
    const extra = await c.send('step', { text: 'hi' });
    expect(extra.data).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ type: 'extra_forbidden', loc: ['data', 'text'], msg: 'Extra inputs are not permitted' }],
    });
    // An unparseable wire-format output is a move (r_format −3), not a protocol error.
    const m = await c.send('step', { message: 'not json at all' });
    expect(m.type).toBe('observation');
    expect((m.data.observation as { metadata: { parse_error: string } }).metadata.parse_error).toMatch(/not valid JSON/);
    let done = m.data.done as boolean;
    while (!done) done = (await c.send('step', { message: '{"thinking":"t","action_type":"end_call","content":"bye","tool_args":{}}' })).data.done as boolean;
    await err(c.send('step', { message: '{}' }), 'VALIDATION_ERROR', /step after done: episode env-\w+:0 is over \(end_call\)/);
    const state = await c.send('state');
    expect(state.data).toMatchObject({ done: true, episodes_stored: 1 });
    c.close();
  });

  it('answers bad HTTP input with an error naming it, and the server goes on', async () => {
    expect(await post(`${server.url}/reset`, '{"seed": 1,')).toMatchObject({ status: 400, body: { code: 'INVALID_JSON' } });
    expect(await post(`${server.url}/step`, { session_id: 'nope', action: { message: 'x' } })).toMatchObject({
      status: 404,
      body: { detail: 'unknown session "nope"; reset without a session_id to open one' },
    });
    expect(await post(`${server.url}/step`, { action: { message: 'x' } })).toMatchObject({ status: 400, body: { code: 'SESSION_ERROR' } });
    expect(await post(`${server.url}/reset`, { seed: 1, pad: 'x'.repeat(5000) })).toMatchObject({
      status: 413,
      body: { detail: expect.stringMatching(/exceeds the limit of 4096 bytes/) },
    });
    expect(await post(`${server.url}/reset`, { scenario: 'nowhere' })).toMatchObject({
      status: 422,
      body: { detail: expect.stringMatching(/unknown scenario "nowhere"/) },
    });
    const r = await post(`${server.url}/reset`, {});
    expect(await post(`${server.url}/step`, { session_id: r.session })).toMatchObject({
      status: 422,
      body: { message: expect.stringMatching(/needs "action"/), detail: [{ type: 'missing', loc: ['body', 'action'] }] },
    });
    expect(await post(`${server.url}/reset`, { seed: -3 })).toMatchObject({
      status: 422,
      body: { code: 'VALIDATION_ERROR', detail: [{ type: 'greater_than_equal', loc: ['body', 'seed'], input: -3 }] },
    });
    expect(await post(`${server.url}/step`, { session_id: r.session, action: { message: 'x', tone: 'calm' } })).toMatchObject({
      status: 422,
      body: { detail: [{ type: 'extra_forbidden', loc: ['body', 'action', 'tone'] }] },
    });
    expect(await post(`${server.url}/step`, { session_id: r.session, action: { message: 'x' }, render: true })).toMatchObject({
      status: 422,
      body: { detail: [{ type: 'extra_forbidden', loc: ['body', 'render'] }] },
    });
    expect((await fetch(`${server.url}/nothing`)).status).toBe(404);
    expect(await fetch(`${server.url}/health`).then((x) => x.json())).toStrictEqual({ status: 'healthy' });
    const schema = (await fetch(`${server.url}/schema`).then((x) => x.json())) as Record<string, { title: string }>;
    expect(Object.keys(schema)).toStrictEqual(['action', 'observation', 'state']);
    expect(schema.action!.title).toBe('SparringDaAction');
  });

  it('serves /openapi.json (version, simulation mode) and /mcp (JSON-RPC 2.0: tools/list, tools/call in a session)', async () => {
    const doc = (await fetch(`${server.url}/openapi.json`).then((x) => x.json())) as { info: { version: string }; paths: Record<string, unknown> };
    expect(doc.info.version).toBe('1.0.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/reset', '/step', '/state', '/schema', '/metadata', '/health', '/mcp']));
    const rpc = (body: unknown) => post(`${server.url}/mcp`, body);
    expect(await rpc({})).toMatchObject({ status: 200, body: { jsonrpc: '2.0', id: null, error: { code: -32600 } } });
    expect(await rpc('{"jsonrpc": ')).toMatchObject({ status: 200, body: { jsonrpc: '2.0', error: { code: -32700 } } });
    expect(await rpc({ jsonrpc: '2.0', id: 1, method: 'resources/list' })).toMatchObject({ body: { id: 1, error: { code: -32601 } } });
    const list = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const tools = (list.body.result as { tools: { name: string; inputSchema: unknown }[] }).tools;
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['lookup_account', 'speak', 'end_call']));
    const r = await post(`${server.url}/reset`, { seed: 4, scenario: 'card-declined' });
    const phone = ((r.body.observation as Record<string, unknown>).caller as { phone: string }).phone;
    const call = await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { session_id: r.session, name: 'lookup_account', arguments: { phone } } });
    const answer = (call.body.result as { structuredContent: { observation: { turns: { toolResult?: unknown }[] }; done: boolean } }).structuredContent;
    expect(answer.done).toBe(false);
    expect(answer.observation.turns.some((t) => t.toolResult !== undefined)).toBe(true);
    const unknown = await rpc({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { session_id: r.session, name: 'launch_rocket' } });
    expect(unknown.body).toMatchObject({ id: 4, error: { code: -32602, message: expect.stringMatching(/unknown tool "launch_rocket"/) } });
  });

  it("honours a reset's episode_id (echoed as episode_id, the lab's id beside it) over HTTP and WebSocket", async () => {
    const r = await post(`${server.url}/reset`, { seed: 6, episode_id: 'grpo-step3-rollout7' });
    expect((r.body.observation as { metadata: Record<string, unknown> }).metadata).toMatchObject({
      episode_id: 'grpo-step3-rollout7',
      lab_episode_id: expect.stringMatching(/^env-\w+:0$/),
      seed: 6,
    });
    const st = await fetch(`${server.url}/state?session_id=${r.session}`).then((x) => x.json() as Promise<Record<string, unknown>>);
    expect(st).toMatchObject({ episode_id: 'grpo-step3-rollout7', step_count: 0 });
    const c = await EnvWsClient.connect(server.wsUrl);
    await c.send('reset', { seed: 6, episode_id: 'ws-episode' });
    expect((await c.send('state')).data).toMatchObject({ episode_id: 'ws-episode' });
    c.close();
  });

  it('refuses browser pages of another origin and foreign Host names with 403 and a reason (HTTP and WebSocket)', async () => {
    const evil = await fetch(`${server.url}/schema`, { headers: { origin: 'http://evil.example' } });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ code: 'FORBIDDEN_ORIGIN', detail: expect.stringMatching(/Origin "http:\/\/evil.example"/) });
    const sameSite = await fetch(`${server.url}/reset`, { method: 'POST', body: '{}', headers: { 'sec-fetch-site': 'same-site' } });
    expect(sameSite.status).toBe(403);
    await expect(EnvWsClient.connect(server.wsUrl, { Origin: 'http://localhost:8080' })).rejects.toThrow(/403/);
    await expect(EnvWsClient.connect(server.wsUrl, { Host: 'attacker.example' })).rejects.toThrow(/403/);
    // Without Origin (any program, not a browser page), the token is what counts.
    const c = await EnvWsClient.connect(server.wsUrl);
    expect((await c.send('reset', { seed: 1 })).type).toBe('observation');
    c.close();
  });

  it('stores nothing of an episode abandoned by a reset or a closed socket', async () => {
    const before = store.countEpisodes();
    const c = await EnvWsClient.connect(server.wsUrl);
    await c.send('reset', { seed: 9 });
    await c.send('step', { message: '{"thinking":"t","action_type":"speak","content":"How can I help?","tool_args":{}}' });
    await c.send('reset', { seed: 10 });
    c.close();
    await c.whenClosed();
    expect(store.countEpisodes()).toBe(before);
  });
});

describe('env server: tokens, idle sessions, the CA as learner', () => {
  it('needs the token when one is set, and closes idle sessions (WebSocket and HTTP)', async () => {
    const store = openSqliteStore(':memory:');
    const server = await startEnvServer({
      domain,
      config: DEFAULT_CONFIG,
      opponent: { role: 'CA', policy: new ScriptedCa(domain) },
      opponentSpec: 'scripted',
      scenarios,
      scenarioSet: 'arena',
      adversities: false,
      store,
      token: 'sekrit-token',
      idleTimeoutMs: 300,
    });
    try {
      const bare = server.origin;
      expect(server.url).toBe(`${bare}/token/sekrit-token`);
      expect((await fetch(`${bare}/health`)).status).toBe(200);
      expect(await post(`${bare}/reset`, {})).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
      expect(await post(`${bare}/token/wrong-token/reset`, {})).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
      await expect(EnvWsClient.connect(`${bare.replace('http', 'ws')}/ws`)).rejects.toThrow(/401/);
      const r = await post(`${bare}/reset`, {}, { Authorization: 'Bearer sekrit-token' });
      expect(r.status).toBe(200);
      expect((await post(`${server.url}/reset`, {})).status).toBe(200);
      const c = await EnvWsClient.connect(`${bare.replace('http', 'ws')}/ws?token=sekrit-token`);
      expect((await c.send('reset', { seed: 2 })).type).toBe('observation');
      const closedMsg = await c.next();
      expect(closedMsg.data).toMatchObject({ code: 'SESSION_ERROR', message: expect.stringMatching(/closed: no message for more than 0.3 s/) });
      expect((await c.whenClosed()).code).toBe(4408);
      const late = await post(`${bare}/step`, { session_id: r.session, action: { message: 'x' } }, { Authorization: 'Bearer sekrit-token' });
      expect(late).toMatchObject({ status: 404, body: { detail: expect.stringMatching(/expired/) } });
      expect(server.sessionCount()).toBe(0);
    } finally {
      await server.close();
      store.close();
    }
  });

  it('makes a token when none is given, on loopback too, and refuses a token unfit for a URL', async () => {
    const opts = {
      domain,
      config: DEFAULT_CONFIG,
      opponent: { role: 'CA' as const, policy: new ScriptedCa(domain) },
      opponentSpec: 'scripted',
      scenarios,
      scenarioSet: 'arena',
      adversities: false,
      store: null,
    };
    const server = await startEnvServer(opts);
    try {
      expect(server.token.length).toBeGreaterThanOrEqual(32);
      expect(await post(`${server.origin}/reset`, {})).toMatchObject({ status: 401 });
      expect((await post(`${server.url}/reset`, {})).status).toBe(200);
    } finally {
      await server.close();
    }
    await expect(startEnvServer({ ...opts, token: 'short' })).rejects.toThrow(/at least 8 characters/);
    await expect(startEnvServer({ ...opts, token: 'has/a/slash' })).rejects.toThrow(/letters, digits/);
  });

  it('a CA learner speaking as the scripted CA plays the arena episode against the scripted DA', async () => {
    const store = openSqliteStore(':memory:');
    const server = await startEnvServer({
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
      const c = await EnvWsClient.connect(server.wsUrl);
      const scenario = scenarios[0]!;
      const seed = deriveSeed(4, scenario.id, 0);
      const ref = await runEpisode({
        domain,
        scenario,
        seed,
        da: new ScriptedDa(),
        ca: new ScriptedCa(domain),
        judge: judgeEpisode,
        config: DEFAULT_CONFIG,
        matchId: 'M',
        index: 0,
      });
      const me = new ScriptedCa(domain);
      const rng = new Rng(seed).fork('ca');
      let m = await c.send('reset', { seed, scenario: scenario.id, model: 'ca-client' });
      const first = m.data.observation as Record<string, unknown>;
      expect(first).toMatchObject({ role: 'CA', intent: expect.any(String), dialogue: [] });
      while (!(m.data.done as boolean)) {
        const o = m.data.observation as Record<string, unknown>;
        const view = {
          intent: o.intent,
          situation: o.situation,
          facts: o.facts,
          name: o.name,
          dialogue: o.dialogue,
          ...(o.adversity ? { adversity: o.adversity } : {}),
        };
        m = await c.send('step', { message: me.speak(view as never, rng) });
      }
      const meta = (m.data.observation as { metadata: Record<string, unknown> }).metadata;
      expect(m.data.reward).toBe(ref.record.rCa);
      expect(sameEpisode(store.getEpisode(meta.episode_id as string)!)).toStrictEqual(sameEpisode(ref.record));
      expect(store.getMatch(meta.match_id as string)?.caSpec).toBe('env:ca-client');
      c.close();
    } finally {
      await server.close();
      store.close();
    }
  });
});
