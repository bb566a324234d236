/**
 * `sparring env serve`: Sparring's world as an environment server speaking Meta's OpenEnv protocol
 * (rfcs/002-env-spec.md; the shapes of src/openenv/core/env_server/http_server.py at commit
 * 685de411), so that trainers built for LLMs (TRL's GRPOTrainer, verl, OpenRLHF) train a DA or a
 * CA against a frozen opponent, with RL-ADA's rewards and judge.
 *
 * - WebSocket `/ws`: one session per connection; messages `{"type": "reset"|"step"|"state"|"close",
 *   "data": {…}}`, answers `{"type": "observation", "data": {"observation", "reward", "done"}}`,
 *   `{"type": "state", "data": {…}}` or `{"type": "error", "data": {"message", "code"}}`. An error
 *   leaves the session open.
 * - HTTP: `POST /reset`, `POST /step`, `GET /state`, `GET /schema`, `GET /health`, `GET /metadata`,
 *   `GET /openapi.json` (what `openenv validate` reads: version, simulation mode) and `POST /mcp`
 *   (JSON-RPC 2.0: `tools/list`, `tools/call` in a session; openapi.ts).
 *   OpenEnv's HTTP endpoints are stateless; an episode needs a session, so `/reset` opens one (or
 *   continues the one named by `session_id` in the body or the `X-Session-Id` header) and answers
 *   with its id in `observation.metadata.session_id` and the `X-Session-Id` header; `/step` and
 *   `/state` name it the same way. Errors: `{"detail": message, "code": code}` with an HTTP status.
 *
 * Every finished episode goes to the lab as it ends (RunStore.appendEpisode: the episode and its
 * match's summary in one transaction), one match per server session: id `env-<session>`, the
 * learner's spec `env:<model>` (the client's model name: `model` in a reset, the `X-Model-Name`
 * header or `?model=` on the WebSocket URL), the session, model, role and opponent in its config
 * JSON. An episode abandoned by a new reset, a closed socket or the idle timeout is not stored.
 *
 * Who may call: every request but `/health` needs the token (always, loopback included), as a bearer
 * header, `?token=`, or the path prefix `/token/<token>` that the printed `url` carries (OpenEnv's
 * own client and validator send no headers); a browser page of another origin, or a request by a
 * non-loopback Host name, is refused 403 first (`host/request-guard.ts`). Refusals of fields follow
 * OpenEnv's pydantic models (422 with pydantic's field errors); a reset's `episode_id` is echoed as
 * the episode's id, the lab's own beside it (`lab_episode_id`).
 *
 * A reset may carry `replay`: the learner's earlier turns (a `sparring gym export` line's
 * `replay`), played first against the same seeded opponent, so a rollout starts at the decision
 * point an isolation gym would train on; with `opponent_replay` (the export's too) the opponent's
 * recorded turns are said in its place during the replay, so the point shows the recorded dialogue
 * even when the frozen opponent is not the one that played it (a CA gym after the DA's gym of the
 * same round trains against the new DA from the match's recorded prefixes, as the builtin gym does).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { WebSocketServer } from 'ws';
import type { RawData, WebSocket } from 'ws';
import type { SparringConfig } from '../../core/config';
import type { Domain, Scenario } from '../../core/domain/types';
import { summarise } from '../../core/arena/match';
import type { Judge } from '../../core/arena/match';
import { LearnerEpisode } from '../../core/env/learner-episode';
import type { LearnerRole, Opponent } from '../../core/env/learner-episode';
import { judgeEpisode } from '../../core/judge/judge';
import { deriveSeed, Rng } from '../../core/random';
import type { EpisodeRecord, MatchRecord, RunStore } from '../../core/store/port';
import { crossOriginRefusal, requestTarget } from '../request-guard';
import { EnvError, actionText, fieldError, forbidExtra, observationView, schemas } from './protocol';
import type { EnvErrorCode } from './protocol';
import { mcpTools, openApiDocument } from './openapi';

export const ENV_DEFAULTS = {
  /** A session with no message for this long is closed (OpenEnv's ConcurrencyConfig.session_timeout). */
  idleTimeoutMs: 300_000,
  /** The largest request body or WebSocket message accepted (a DA output is well under 4 KiB). */
  maxBodyBytes: 65_536,
  /** Sessions open at once (OpenEnv's max_concurrent_envs). */
  maxSessions: 1024,
} as const;

/** Addresses that only this machine can reach; anything else needs a token. */
export const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

export interface EnvServerOptions {
  domain: Domain;
  config: SparringConfig;
  judge?: Judge;
  /** The frozen opponent; the learner is the other role. */
  opponent: Opponent;
  /** The opponent's SPEC as given (stored with each match). */
  opponentSpec: string;
  /** The scenarios a reset may name; one is drawn by the seed when a reset names none. */
  scenarios: readonly Scenario[];
  scenarioSet: string;
  adversities: boolean;
  /** Where finished episodes go; null stores nothing (benchmarks). */
  store: RunStore | null;
  host?: string;
  /** 0 (default): any free port. */
  port?: number;
  /**
   * Required by every request but /health: as `Authorization: Bearer`, `?token=`, or the first
   * path segments `/token/<token>/` (what `url` carries, for clients that send no headers, as
   * OpenEnv's own client and validator). Default: a fresh random one, on loopback too.
   */
  token?: string;
  /** Browser origins allowed besides none (`http://host:port`); default: no web page may call. */
  allowOrigins?: readonly string[];
  /** Seeds resets that give none (and the scenario they draw). */
  seed?: number;
  idleTimeoutMs?: number;
  maxBodyBytes?: number;
  maxSessions?: number;
  log?: (line: string) => void;
}

export interface EnvServer {
  /** The base URL clients use: `http://HOST:PORT/token/<token>` (the credential in the path, which every client keeps). */
  readonly url: string;
  /** `ws://HOST:PORT/token/<token>/ws`. */
  readonly wsUrl: string;
  /** `http://HOST:PORT`, without the credential. */
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  readonly role: LearnerRole;
  /** Sessions open now. */
  sessionCount(): number;
  /** Episodes stored since the server started. */
  episodesStored(): number;
  close(): Promise<void>;
}

function rpcError(code: number, message: string, id: string | number | null, data?: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } };
}

export function newEnvToken(): string {
  return randomBytes(24).toString('base64url');
}

interface Session {
  id: string;
  transport: 'ws' | 'http';
  model: string;
  matchId: string;
  createdAt: string;
  lastActive: number;
  /** Requests in flight; an idle sweep never closes a session that is answering one. */
  pending: number;
  queue: Promise<unknown>;
  episode: LearnerEpisode | null;
  /** The client's own id for the episode (OpenEnv's reset `episode_id`), echoed in metadata. */
  clientEpisodeId: string | null;
  played: Pick<EpisodeRecord, 'scenarioId' | 'winner'>[];
  lastStored: EpisodeRecord | null;
  ws?: WebSocket;
}

interface StepAnswer {
  observation: Record<string, unknown>;
  reward: number | null;
  done: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The fields a reset reads (HTTP adds `session_id`). */
const RESET_FIELDS = ['seed', 'scenario', 'episode_id', 'model', 'replay', 'opponent_replay'];

/**
 * A request's URL with the credential prefix `/token/<token>` taken off the path: clients that
 * send no headers (OpenEnv's GenericEnvClient and `openenv validate`) append their routes to the
 * base URL they are given, so the printed URL carries the token where they keep it.
 */
function locate(req: IncomingMessage): { url: URL; pathname: string; inPath: string | null } {
  const url = requestTarget(req.url);
  if (!url) throw new EnvError('VALIDATION_ERROR', 400, `the request target ${JSON.stringify((req.url ?? '').slice(0, 200))} is not a URL path`);
  const m = /^\/token\/([^/]*)(\/.*)?$/.exec(url.pathname);
  if (!m) return { url, pathname: url.pathname, inPath: null };
  let inPath: string;
  try {
    inPath = decodeURIComponent(m[1]!);
  } catch {
    inPath = '';
  }
  return { url, pathname: m[2] ?? '/', inPath };
}

export async function startEnvServer(o: EnvServerOptions): Promise<EnvServer> {
  const host = o.host ?? '127.0.0.1';
  if (o.token !== undefined && o.token.length < 8) throw new Error('env serve: a token needs at least 8 characters');
  if (o.token !== undefined && !/^[A-Za-z0-9._~-]+$/.test(o.token))
    throw new Error('env serve: a token may hold only letters, digits and . _ ~ - (it travels in URLs)');
  const token = o.token ?? newEnvToken();
  const role: LearnerRole = o.opponent.role === 'CA' ? 'DA' : 'CA';
  const judge = o.judge ?? judgeEpisode;
  const idleMs = o.idleTimeoutMs ?? ENV_DEFAULTS.idleTimeoutMs;
  const maxBody = o.maxBodyBytes ?? ENV_DEFAULTS.maxBodyBytes;
  const maxSessions = o.maxSessions ?? ENV_DEFAULTS.maxSessions;
  const serverSeed = o.seed ?? 1;
  const log = o.log ?? (() => {});
  const byId = new Map(o.scenarios.map((s) => [s.id, s]));
  const sessions = new Map<string, Session>();
  /** Sessions closed for idleness, so a late request hears "expired", not "unknown" (bounded). */
  const expired = new Set<string>();
  let stored = 0;

  const knownScenarios = () => [...byId.keys()].join(', ');

  function openSession(transport: Session['transport'], model: string | null): Session {
    if (sessions.size >= maxSessions)
      throw new EnvError('CAPACITY_REACHED', 503, `the server holds ${sessions.size} sessions, its limit (--max-sessions); close one first`);
    const id = randomUUID().replace(/-/g, '').slice(0, 16);
    const s: Session = {
      id,
      transport,
      model: model ?? 'unnamed',
      matchId: `env-${id}`,
      createdAt: new Date().toISOString(),
      lastActive: Date.now(),
      pending: 0,
      queue: Promise.resolve(),
      episode: null,
      clientEpisodeId: null,
      played: [],
      lastStored: null,
    };
    sessions.set(id, s);
    return s;
  }

  function dropSession(s: Session, why: string): void {
    if (!sessions.delete(s.id)) return;
    if (s.episode && !s.episode.done) log(`env: session ${s.id}: ${why}; its unfinished episode is not stored`);
  }

  function findSession(id: unknown): Session {
    if (typeof id !== 'string' || id === '')
      throw new EnvError('SESSION_ERROR', 400, 'no session: name it with "session_id" (body or ?session_id=) or the X-Session-Id header, as /reset answered');
    const s = sessions.get(id);
    if (s) return s;
    if (expired.has(id))
      throw new EnvError(
        'SESSION_ERROR',
        404,
        `session "${id}" expired: no request for more than ${idleMs / 1000} s; reset without a session_id to open a new one`,
      );
    throw new EnvError('SESSION_ERROR', 404, `unknown session "${id}"; reset without a session_id to open one`);
  }

  /** Run one request of a session after the ones before it (a session's requests never interleave). */
  function inSession<T>(s: Session, fn: () => Promise<T>): Promise<T> {
    s.pending++;
    s.lastActive = Date.now();
    const p = s.queue.then(fn);
    s.queue = p.then(
      () => undefined,
      () => undefined,
    );
    return p.finally(() => {
      s.pending--;
      s.lastActive = Date.now();
    });
  }

  function matchOf(s: Session): MatchRecord {
    const played = new Set(s.played.map((e) => e.scenarioId));
    const scenarios = o.scenarios.filter((x) => played.has(x.id));
    const { perScenario, wDa, fraudRate } = summarise(scenarios, s.played);
    const learner = `env:${s.model}`;
    return {
      id: s.matchId,
      createdAt: s.createdAt,
      seed: serverSeed,
      daSpec: role === 'DA' ? learner : o.opponentSpec,
      caSpec: role === 'CA' ? learner : o.opponentSpec,
      // The learner is outside the lab (no checkpoint); the frozen opponent is whatever its SPEC resolved to.
      daCheckpoint: o.opponent.role === 'DA' ? (o.opponent.policy.checkpoint ?? null) : null,
      caCheckpoint: o.opponent.role === 'CA' ? (o.opponent.policy.checkpoint ?? null) : null,
      scenarioSet: o.scenarioSet,
      episodesPerScenario: Math.max(0, ...perScenario.map((r) => r.episodes)),
      wDa,
      fraudRate,
      perScenario,
      configJson: JSON.stringify({
        ...o.config,
        env: { session: s.id, model: s.model, learner: role, opponent: o.opponentSpec, adversities: o.adversities, transport: s.transport },
      }),
    };
  }

  /**
   * A reset's fields, refused as OpenEnv's ResetRequest refuses them (seed an integer >= 0,
   * episode_id at most 255 characters) and, beyond it, any field this world does not read (a typo
   * would otherwise play a different episode than asked). `at`: where the fields are (`body`, `data`).
   */
  async function reset(s: Session, data: Record<string, unknown>, at: string): Promise<StepAnswer> {
    forbidExtra(data, at === 'body' ? [...RESET_FIELDS, 'session_id'] : RESET_FIELDS, [at]);
    const { seed, scenario, episode_id: clientId, model, replay } = data;
    if (seed !== undefined && seed !== null) {
      if (typeof seed !== 'number' || !Number.isInteger(seed)) throw fieldError([at, 'seed'], 'int_type', 'Input should be a valid integer', seed);
      if (seed < 0) throw fieldError([at, 'seed'], 'greater_than_equal', 'Input should be greater than or equal to 0', seed, { ge: 0 });
      if (!Number.isSafeInteger(seed))
        throw fieldError([at, 'seed'], 'less_than_equal', `Input should be less than or equal to ${Number.MAX_SAFE_INTEGER}`, seed);
    }
    if (clientId !== undefined && clientId !== null) {
      if (typeof clientId !== 'string') throw fieldError([at, 'episode_id'], 'string_type', 'Input should be a valid string', clientId);
      if (clientId.length > 255)
        throw fieldError([at, 'episode_id'], 'string_too_long', 'String should have at most 255 characters', clientId.slice(0, 300), { max_length: 255 });
    }
    for (const [field, what] of [
      ['replay', "the learner's earlier turns"],
      ['opponent_replay', "the opponent's recorded turns"],
    ] as const) {
      const v = data[field];
      if (v !== undefined && v !== null && (!Array.isArray(v) || v.length > o.config.arena.maxDaTurns * 2 || !v.every((r) => typeof r === 'string'))) {
        throw new EnvError(
          'VALIDATION_ERROR',
          422,
          `reset: "${field}" must be a list of at most ${o.config.arena.maxDaTurns * 2} strings (${what}, as in a gym export's "${field}")`,
        );
      }
    }
    const opponentTurns = (data.opponent_replay as string[] | null | undefined) ?? [];
    if (scenario !== undefined && scenario !== null && (typeof scenario !== 'string' || !byId.has(scenario))) {
      throw new EnvError('VALIDATION_ERROR', 422, `reset: unknown scenario ${JSON.stringify(scenario)}; this server plays: ${knownScenarios()}`);
    }
    if (model !== undefined && model !== null) {
      if (typeof model !== 'string' || model === '' || model.length > 200)
        throw new EnvError('VALIDATION_ERROR', 422, 'reset: "model" must be a non-empty string of at most 200 characters');
      s.model = model;
    }
    const index = s.played.length;
    // The arena's episode seeds are signed 32-bit (deriveSeed); a reset's seed is OpenEnv's (>= 0),
    // read modulo 2^32, so `seed >>> 0` of an arena seed plays that very episode.
    const episodeSeed = typeof seed === 'number' ? (seed % 2 ** 32) | 0 : deriveSeed(serverSeed, s.id, index);
    const sc = typeof scenario === 'string' ? byId.get(scenario)! : new Rng(episodeSeed).fork('env-scenario').pick(o.scenarios);
    if (s.episode && !s.episode.done) log(`env: session ${s.id}: reset during an episode; the unfinished one is not stored`);
    s.episode = null;
    s.episode = await LearnerEpisode.start({
      domain: o.domain,
      config: o.config,
      judge,
      scenario: sc,
      seed: episodeSeed,
      opponent: o.opponent,
      matchId: s.matchId,
      index,
      opponentTurns,
    });
    // A gym export's decision point: the learner's recorded turns, replayed against the same
    // seeded opponent, bring the episode to the point the gym would train on.
    for (const [i, text] of ((replay as string[] | undefined) ?? []).entries()) {
      if (s.episode.done) {
        s.episode = null;
        throw new EnvError(
          'VALIDATION_ERROR',
          422,
          `reset: the episode ended at replayed turn ${i - 1} of ${(replay as string[]).length}; the replay does not fit this seed, scenario and opponent`,
        );
      }
      await s.episode.act(text);
    }
    if (s.episode.done) {
      s.episode = null;
      throw new EnvError('VALIDATION_ERROR', 422, 'reset: the replay ended the episode; a decision point needs a move left to make');
    }
    if (s.episode.opponentTurnsLeft > 0) {
      const left = s.episode.opponentTurnsLeft;
      s.episode = null;
      throw new EnvError(
        'VALIDATION_ERROR',
        422,
        `reset: ${left} of the ${opponentTurns.length} turns of "opponent_replay" were left after the replay; they do not fit its "replay"`,
      );
    }
    s.clientEpisodeId = typeof clientId === 'string' ? clientId : null;
    return answer(s, null);
  }

  async function step(s: Session, action: unknown, at: (string | number)[]): Promise<StepAnswer> {
    const ep = s.episode;
    if (!ep) throw new EnvError('VALIDATION_ERROR', 409, 'step before reset: send reset first');
    if (ep.done)
      throw new EnvError(
        'VALIDATION_ERROR',
        409,
        `step after done: episode ${s.matchId}:${s.played.length - 1} is over (${ep.state().endReason}); send reset for the next one`,
      );
    const text = actionText(role, action, at);
    await ep.act(text);
    let storeError: string | null = null;
    if (ep.done) {
      const rec = ep.outcome!.record;
      s.played.push({ scenarioId: rec.scenarioId, winner: rec.winner });
      if (o.store) {
        try {
          o.store.appendEpisode(matchOf(s), rec);
          stored++;
          s.lastStored = rec;
        } catch (err) {
          s.played.pop();
          storeError = (err as Error).message;
          log(`env: session ${s.id}: ${storeError}`);
        }
      } else s.lastStored = rec;
    }
    return answer(s, storeError);
  }

  function answer(s: Session, storeError: string | null): StepAnswer {
    const ep = s.episode!;
    const index = ep.done ? s.played.length - (storeError ? 0 : 1) : s.played.length;
    const metadata: Record<string, unknown> = {
      session_id: s.id,
      // The client's own id when its reset gave one (OpenEnv's episode_id), else the lab's.
      episode_id: s.clientEpisodeId ?? `${s.matchId}:${index}`,
      lab_episode_id: `${s.matchId}:${index}`,
      scenario: ep.scenario.id,
      seed: ep.seed >>> 0,
      step: ep.steps,
    };
    const last = ep.state().turns.at(-1);
    if (role === 'DA' && last?.role === 'agent' && last.parseError) metadata.parse_error = last.parseError;
    let reward: number | null = ep.steps === 0 ? null : 0;
    if (ep.done) {
      const r = ep.outcome!.record;
      reward = role === 'DA' ? r.rDa : r.rCa;
      const mine = role === 'DA' ? 'agent' : 'customer';
      Object.assign(metadata, {
        match_id: s.matchId,
        stored: o.store !== null && storeError === null,
        ...(storeError ? { store_error: storeError } : {}),
        r_da: r.rDa,
        r_ca: r.rCa,
        terms: role === 'DA' ? r.daTerms : r.caTerms,
        da_terms: r.daTerms,
        ca_terms: r.caTerms,
        turn_rewards: r.turns.filter((t) => t.role === mine).map((t) => ({ turn: t.index, rewards: t.rewards })),
        judge: r.judge,
        winner: r.winner,
        end_reason: r.endReason,
        intent: r.intent,
        expected_tool: r.expectedTool,
        routed_tool: r.routedTool,
        adversities: r.adversities ?? [],
      });
    }
    return { observation: { ...observationView(ep.observe(), ep.scenario, ep.steps === 0, ep.done), metadata }, reward, done: ep.done };
  }

  function stateOf(s: Session): Record<string, unknown> {
    const ep = s.episode;
    const last = s.lastStored;
    const labId = ep ? `${s.matchId}:${ep.done ? s.played.length - 1 : s.played.length}` : null;
    return {
      episode_id: ep ? (s.clientEpisodeId ?? labId) : null,
      lab_episode_id: labId,
      step_count: ep?.steps ?? 0,
      session_id: s.id,
      model: s.model,
      role,
      opponent: o.opponentSpec,
      scenario: ep?.scenario.id ?? null,
      seed: ep ? ep.seed >>> 0 : null,
      done: ep?.done ?? false,
      match_id: s.matchId,
      episodes_stored: s.played.length,
      last_episode: last
        ? {
            id: last.id,
            scenario: last.scenarioId,
            seed: last.seed,
            r_da: last.rDa,
            r_ca: last.rCa,
            da_terms: last.daTerms,
            ca_terms: last.caTerms,
            winner: last.winner,
            judge_score: last.judge.score,
          }
        : null,
    };
  }

  const metadataDoc = {
    name: 'sparring',
    description: `Sparring's banking world (RL-ADA): the ${role} learns against the frozen ${o.opponent.role} "${o.opponentSpec}"; scenarios: ${o.scenarioSet}; adversities ${o.adversities ? 'on' : 'off'}.`,
    version: '1',
    documentation_url: 'docs/llms.md#train-llm-roles-at-scale',
  };

  const openApi = openApiDocument(role, metadataDoc.description);

  // ---- MCP (JSON-RPC 2.0) ---------------------------------------------------------------------
  /**
   * `POST /mcp`: `tools/list` gives the learner's moves as tools (no session needed); `tools/call`
   * plays one as a step in the HTTP session `params.session_id` (that /reset opened) and returns
   * the step's answer. Refusals are JSON-RPC errors (parse -32700, request -32600, method -32601,
   * params -32602) with HTTP 200, as OpenEnv's /mcp answers.
   */
  async function mcp(body: unknown): Promise<Record<string, unknown>> {
    if (!isObject(body)) return rpcError(-32600, 'Invalid Request: expected a JSON-RPC 2.0 request object {"jsonrpc": "2.0", "method", "params", "id"}', null);
    const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
    const extra = Object.keys(body).filter((k) => !['jsonrpc', 'method', 'params', 'id'].includes(k));
    if (body.jsonrpc !== '2.0') return rpcError(-32600, 'Invalid Request: "jsonrpc" must be "2.0"', id);
    if (typeof body.method !== 'string') return rpcError(-32600, 'Invalid Request: "method" must be a string', id);
    if (extra.length) return rpcError(-32600, `Invalid Request: unknown field "${extra[0]}"`, id);
    const params = body.params ?? {};
    if (!isObject(params)) return rpcError(-32602, 'Invalid params: "params" must be an object', id);
    if (body.method === 'tools/list') return { jsonrpc: '2.0', id, result: { tools: mcpTools(role) } };
    if (body.method !== 'tools/call') return rpcError(-32601, `Method not found: ${body.method}; this server answers tools/list and tools/call`, id);
    const { name, session_id: sid } = params;
    const args = params.arguments ?? {};
    if (typeof name !== 'string') return rpcError(-32602, 'Invalid params: "name" (the tool) must be a string', id);
    if (!isObject(args)) return rpcError(-32602, 'Invalid params: "arguments" must be an object', id);
    if (typeof sid !== 'string') return rpcError(-32602, 'Invalid params: "session_id" is required: tools/call plays a move in the session /reset opened', id);
    const s = sessions.get(sid);
    if (!s) return rpcError(-32602, `Invalid params: unknown session_id "${sid}"`, id);
    if (role === 'CA' && name !== 'speak') return rpcError(-32602, `Invalid params: unknown tool "${name}"; the customer's one tool is speak`, id);
    const action = role === 'DA' ? { tool_call: { name, arguments: args } } : { message: args.message };
    try {
      const answer = await inSession(s, () => step(s, action, ['params']));
      return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer, isError: false } };
    } catch (e) {
      if (e instanceof EnvError) return rpcError(-32602, `Invalid params: ${e.message}`, id, { code: e.code, ...(e.errors ? { errors: e.errors } : {}) });
      throw e;
    }
  }

  // ---- authentication ----------------------------------------------------------------------
  function authorised(req: IncomingMessage, url: URL, inPath: string | null): boolean {
    const h = req.headers.authorization;
    const given = inPath ?? (h?.startsWith('Bearer ') ? h.slice(7) : url.searchParams.get('token'));
    if (given === null || given === undefined) return false;
    const a = Buffer.from(given);
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  // ---- HTTP -----------------------------------------------------------------------------------
  function send(res: ServerResponse, status: number, body: unknown, sessionId?: string): void {
    const text = JSON.stringify(body);
    const headers: Record<string, string | number> = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) };
    if (sessionId) headers['X-Session-Id'] = sessionId;
    res.writeHead(status, headers);
    res.end(text);
  }
  // Field refusals as FastAPI answers them (`detail`: pydantic's list), with `message` naming the field.
  const sendError = (res: ServerResponse, e: EnvError) =>
    send(res, e.status, e.errors ? { detail: e.errors, message: e.message, code: e.code } : { detail: e.message, code: e.code });

  function readBody(req: IncomingMessage): Promise<Record<string, unknown>>;
  function readBody(req: IncomingMessage, anyJson: true): Promise<unknown>;
  function readBody(req: IncomingMessage, anyJson = false): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const declared = Number(req.headers['content-length'] ?? 0);
      let size = 0;
      let tooBig = declared > maxBody;
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBody) tooBig = true;
        if (!tooBig) chunks.push(c);
      });
      req.on('error', reject);
      req.on('end', () => {
        if (tooBig)
          return reject(new EnvError('VALIDATION_ERROR', 413, `request body of ${Math.max(size, declared)} bytes exceeds the limit of ${maxBody} bytes`));
        const text = Buffer.concat(chunks).toString('utf8');
        if (text.trim() === '') return resolve(anyJson ? undefined : {});
        let v: unknown;
        try {
          v = JSON.parse(text);
        } catch (err) {
          return reject(new EnvError('INVALID_JSON', 400, `Invalid JSON: ${(err as Error).message}`));
        }
        if (!anyJson && !isObject(v)) return reject(new EnvError('VALIDATION_ERROR', 422, 'the request body must be a JSON object'));
        resolve(v);
      });
    });
  }

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { url, pathname, inPath } = locate(req);
    const foreign = crossOriginRefusal(req, { bound: host, ...(o.allowOrigins ? { allowOrigins: o.allowOrigins } : {}) });
    if (foreign) return sendError(res, new EnvError('FORBIDDEN_ORIGIN', 403, foreign));
    const route = `${req.method} ${pathname}`;
    if (route === 'GET /health') return send(res, 200, { status: 'healthy' });
    if (!authorised(req, url, inPath))
      return sendError(
        res,
        new EnvError(
          'UNAUTHORIZED',
          401,
          'missing or wrong token: use the URL env serve printed (…/token/<token>), or send "Authorization: Bearer <token>" (or ?token=)',
        ),
      );
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    switch (route) {
      case 'GET /schema':
        return send(res, 200, schemas(role));
      case 'GET /metadata':
        return send(res, 200, metadataDoc);
      case 'GET /openapi.json':
        return send(res, 200, openApi);
      case 'POST /mcp': {
        let body: unknown;
        try {
          body = await readBody(req, true);
        } catch (e) {
          if (e instanceof EnvError && e.code === 'INVALID_JSON') return send(res, 200, rpcError(-32700, `Parse error: ${e.message}`, null));
          throw e;
        }
        return send(res, 200, await mcp(body));
      }
      case 'GET /state': {
        const s = findSession(url.searchParams.get('session_id') ?? header('x-session-id'));
        s.lastActive = Date.now();
        return send(res, 200, stateOf(s), s.id);
      }
      case 'POST /reset': {
        const body = await readBody(req);
        const named = body.session_id ?? header('x-session-id');
        forbidExtra(body, [...RESET_FIELDS, 'session_id'], ['body']);
        const s = named !== undefined ? findSession(named) : openSession('http', header('x-model-name') ?? null);
        try {
          return send(res, 200, await inSession(s, () => reset(s, body, 'body')), s.id);
        } catch (e) {
          if (named === undefined && s.episode === null) sessions.delete(s.id); // a refused first reset leaves no session behind
          throw e;
        }
      }
      case 'POST /step': {
        const body = await readBody(req);
        // OpenEnv's StepRequest: action, and the optional timeout_s (> 0) and request_id (<= 255 characters).
        forbidExtra(body, ['action', 'session_id', 'timeout_s', 'request_id'], ['body']);
        if (body.timeout_s !== undefined && body.timeout_s !== null && !(typeof body.timeout_s === 'number' && body.timeout_s > 0))
          throw fieldError(['body', 'timeout_s'], 'greater_than', 'Input should be greater than 0', body.timeout_s, { gt: 0 });
        if (body.request_id !== undefined && body.request_id !== null && !(typeof body.request_id === 'string' && body.request_id.length <= 255))
          throw fieldError(['body', 'request_id'], 'string_too_long', 'Input should be a string of at most 255 characters', body.request_id, {
            max_length: 255,
          });
        const s = findSession(body.session_id ?? header('x-session-id'));
        if (!('action' in body))
          throw new EnvError('VALIDATION_ERROR', 422, 'step: the body needs "action", e.g. {"action": {"message": "..."}, "session_id": "..."}', [
            { type: 'missing', loc: ['body', 'action'], msg: 'Field required', input: body },
          ]);
        return send(res, 200, await inSession(s, () => step(s, body.action, ['body', 'action'])), s.id);
      }
      default:
        throw new EnvError(
          'UNKNOWN_TYPE',
          404,
          `no endpoint ${route}; endpoints: POST /reset, POST /step, GET /state, GET /schema, GET /health, GET /metadata, GET /openapi.json, POST /mcp, WebSocket /ws`,
        );
    }
  }

  const server = createServer((req, res) => {
    handleHttp(req, res).catch((err: unknown) => {
      if (res.headersSent) return;
      if (err instanceof EnvError) return sendError(res, err);
      log(`env: ${req.method} ${req.url}: ${(err as Error).stack ?? String(err)}`);
      sendError(res, new EnvError('EXECUTION_ERROR', 500, (err as Error).message));
    });
  });

  // ---- WebSocket ------------------------------------------------------------------------------
  // ws closes a connection whose message exceeds maxPayload; below that hard limit, a message over
  // maxBody is answered with an error and the session goes on.
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxBody * 16 });
  server.on('upgrade', (req, socket, head) => {
    const refuse = (status: string, why: string) => {
      const text = `${why}\n`;
      socket.end(
        `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
    };
    let located;
    try {
      located = locate(req);
    } catch (e) {
      return refuse('400 Bad Request', (e as Error).message);
    }
    const { url, pathname, inPath } = located;
    const foreign = crossOriginRefusal(req, { bound: host, ...(o.allowOrigins ? { allowOrigins: o.allowOrigins } : {}) });
    if (foreign) return refuse('403 Forbidden', foreign);
    if (pathname !== '/ws') return refuse('404 Not Found', `no WebSocket endpoint ${pathname}; use /ws`);
    if (!authorised(req, url, inPath)) return refuse('401 Unauthorized', 'missing or wrong token: use the URL env serve printed (…/token/<token>/ws)');
    wss.handleUpgrade(req, socket, head, (ws) => {
      const m = req.headers['x-model-name'];
      let s: Session;
      try {
        s = openSession('ws', url.searchParams.get('model') ?? (Array.isArray(m) ? m[0]! : m) ?? null);
      } catch (e) {
        const err = e as EnvError;
        ws.send(JSON.stringify({ type: 'error', data: { message: err.message, code: err.code } }));
        ws.close(1013, 'capacity reached');
        return;
      }
      s.ws = ws;
      ws.on('message', (data: RawData, isBinary: boolean) => {
        void inSession(s, () => handleWs(s, ws, data, isBinary));
      });
      ws.on('close', () => dropSession(s, 'connection closed'));
      ws.on('error', (err) => log(`env: session ${s.id}: ${err.message}`));
    });
  });

  async function handleWs(s: Session, ws: WebSocket, data: RawData, isBinary: boolean): Promise<void> {
    const reply = (type: string, d: unknown) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type, data: d }));
    };
    const fail = (code: EnvErrorCode, message: string) => reply('error', { message, code });
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (buf.length > maxBody) return fail('VALIDATION_ERROR', `message of ${buf.length} bytes exceeds the limit of ${maxBody} bytes`);
    if (isBinary) return fail('INVALID_JSON', 'binary frames are not accepted: send JSON text');
    let msg: unknown;
    try {
      msg = JSON.parse(buf.toString('utf8'));
    } catch (err) {
      return fail('INVALID_JSON', `Invalid JSON: ${(err as Error).message}`);
    }
    const type = isObject(msg) ? msg.type : undefined;
    try {
      // OpenEnv's WS messages forbid fields they do not declare (reset/step: type, data; state/close: type).
      if (isObject(msg) && typeof type === 'string' && ['reset', 'step', 'state', 'close'].includes(type))
        forbidExtra(msg, type === 'reset' || type === 'step' ? ['type', 'data'] : ['type'], []);
      switch (type) {
        case 'reset': {
          const d = (msg as Record<string, unknown>).data ?? {};
          if (!isObject(d))
            throw fieldError(['data'], 'dict_type', 'reset: "data" must be an object (seed, scenario, episode_id, model, replay, opponent_replay)', d);
          return reply('observation', await reset(s, d, 'data'));
        }
        case 'step': {
          const d = (msg as Record<string, unknown>).data;
          if (d === undefined)
            throw new EnvError('VALIDATION_ERROR', 422, 'step: "data" (the action) is required, e.g. {"type": "step", "data": {"message": "..."}}', [
              { type: 'missing', loc: ['data'], msg: 'Field required', input: msg },
            ]);
          return reply('observation', await step(s, d, ['data']));
        }
        case 'state':
          return reply('state', stateOf(s));
        case 'close':
          ws.close(1000, 'closed by client');
          return;
        default:
          return fail('UNKNOWN_TYPE', `Unknown message type: ${JSON.stringify(type ?? null)}; types: reset, step, state, close`);
      }
    } catch (err) {
      if (err instanceof EnvError)
        return err.errors ? reply('error', { message: err.message, code: err.code, errors: err.errors }) : fail(err.code, err.message);
      log(`env: session ${s.id}: ${(err as Error).stack ?? String(err)}`);
      return fail('EXECUTION_ERROR', (err as Error).message);
    }
  }

  // ---- idle sessions ----------------------------------------------------------------------------
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const s of sessions.values()) {
        if (s.pending > 0 || now - s.lastActive <= idleMs) continue;
        dropSession(s, `idle for more than ${idleMs / 1000} s`);
        expired.add(s.id);
        if (expired.size > 10_000) expired.delete(expired.values().next().value!);
        if (s.ws && s.ws.readyState === s.ws.OPEN) {
          s.ws.send(
            JSON.stringify({
              type: 'error',
              data: { message: `session "${s.id}" closed: no message for more than ${idleMs / 1000} s`, code: 'SESSION_ERROR' },
            }),
          );
          s.ws.close(4408, 'idle timeout');
        }
      }
    },
    Math.max(50, Math.min(idleMs / 2, 5000)),
  );
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/token/${token}`,
    wsUrl: `ws://${shown}:${port}/token/${token}/ws`,
    origin: `http://${shown}:${port}`,
    port,
    token,
    role,
    sessionCount: () => sessions.size,
    episodesStored: () => stored,
    async close() {
      clearInterval(sweep);
      for (const c of wss.clients) c.close(1001, 'server stopping');
      await Promise.all([...sessions.values()].map((s) => s.queue));
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
