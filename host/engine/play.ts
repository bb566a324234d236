/**
 * Human play in the engine: a person in one seat of an arena episode, a policy (scripted or a
 * checkpoint) in the other. Sessions live in memory while open and as drafts in the lab after
 * every move, so a closed window or a restarted engine loses nothing: `play/resume` rebuilds the
 * episode by replaying the draft's turns on the same seeded world. A finished episode is judged
 * and rewarded exactly as an arena episode (`scoreEpisode`) and stored, marked as human-played,
 * in one transaction with the removal of its draft. A move that fails validation changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CaPolicy, DaPolicy } from '../../core/agents/policy';
import { scoreEpisode, summarise } from '../../core/arena/match';
import { selectScenarios } from '../../core/arena/scenarios';
import { DEFAULT_CONFIG } from '../../core/config';
import type { SparringConfig } from '../../core/config';
import type { Handlers, PlaySessionSummary, PlayTurn, PlayView } from '../../core/contract/contract';
import { TOOL_NAMES } from '../../core/domain/types';
import type { Domain, Scenario } from '../../core/domain/types';
import { judgeEpisode } from '../../core/judge/judge';
import { HumanEpisode, MAX_MESSAGE_CHARS, PlayError } from '../../core/play/human-episode';
import type { ReplayTurn, Seat } from '../../core/play/human-episode';
import { deriveSeed, Rng } from '../../core/random';
import type { EpisodeRecord, MatchRecord } from '../../core/store/port';
import { toolArgSchemas } from '../../core/world/backend';
import type { Turn } from '../../core/world/transcript';
import { PendingLedger } from '../../models/llm/ledger';
import { llmStore } from '../store/llm-store';
import { playStore } from '../store/play-store';
import type { PlayDraft } from '../store/play-store';
import type { SqliteRunStore } from '../store/sqlite-store';

type PlayRequest = 'play/start' | 'play/fork' | 'play/act' | 'play/resume' | 'play/discard' | 'play/setup' | 'play/sessions' | 'play/episodes';
export type PlayHandlers = Pick<Handlers, PlayRequest>;

export interface PlayDeps {
  store: SqliteRunStore;
  /** The lab's scenarios (shipped and custom), read when a session starts or reopens. */
  domain: () => Domain;
  /**
   * The policy for the seat the person does not take: a DA against a human customer, a CA against a
   * human agent. An LLM opponent records its calls in `calls`, the session's own ledger.
   */
  resolve(role: 'DA' | 'CA', spec: string, calls: PendingLedger): Promise<DaPolicy | CaPolicy>;
  /** A ledger for one session's LLM calls (`playLedger`); none: calls are not recorded. */
  ledger?: () => PendingLedger;
  /** Release a policy's resources (ONNX sessions) when its session ends. */
  release(policy: DaPolicy | CaPolicy): Promise<void>;
  now?: () => string;
  /** Each turn as it is taken (the player's move, then the opponent's moves one by one). */
  emit?: (e: { sessionId: string; turn: PlayTurn }) => void;
}

export interface PlayService {
  readonly handlers: PlayHandlers;
  /** Release every open session's policy (drafts stay in the lab). */
  close(): Promise<void>;
}

interface Live {
  draft: PlayDraft;
  scenario: Scenario;
  config: SparringConfig;
  ep: HumanEpisode;
  opponent: DaPolicy | CaPolicy;
  /** The opponent's LLM calls since the session opened, written with the episode. */
  calls: PendingLedger;
  /** Set once the episode is stored. */
  episode: EpisodeRecord | null;
  /** Moves of one session run one after another. */
  queue: Promise<unknown>;
}

/** Finished sessions kept in memory (so a reload still shows the verdict); older ones are dropped. */
const KEEP_FINISHED = 20;
/** Human episodes listed by `play/episodes`, newest first. */
const EPISODE_LIST_LIMIT = 200;

export function createPlayService(d: PlayDeps): PlayService {
  const store = playStore(d.store);
  const now = d.now ?? (() => new Date().toISOString());
  const live = new Map<string, Live>();

  const opponentRole = (seat: Seat) => (seat === 'customer' ? 'DA' : 'CA');

  function scenarioById(id: string): Scenario {
    const s = d.domain().scenarios.find((x) => x.id === id);
    if (!s)
      throw new PlayError(
        `no scenario "${id}"; known: ${d
          .domain()
          .scenarios.map((x) => x.id)
          .join(', ')}`,
      );
    return s;
  }

  /** Build a live session from a draft: the opponent loaded, the draft's turns replayed. */
  async function open(draft: PlayDraft): Promise<Live> {
    const scenario = scenarioById(draft.scenarioId);
    const config = JSON.parse(draft.configJson) as SparringConfig;
    const ep = new HumanEpisode({ domain: d.domain(), scenario, seed: draft.seed, seat: draft.seat, config, replay: draft.turns });
    // A session resumed after a newer checkpoint exists plays the one it started with, not today's `latest`.
    const calls = d.ledger?.() ?? new PendingLedger(() => undefined);
    const opponent = await d.resolve(opponentRole(draft.seat), draft.opponentCheckpoint?.name ?? draft.opponent, calls);
    draft.opponentCheckpoint ??= opponent.checkpoint ?? null;
    return { draft, scenario, config, ep, opponent, calls, episode: null, queue: Promise.resolve() };
  }

  /** The opponent moves until it is the person's turn; then the draft is saved, or the episode stored. */
  function emitLast(s: Live): void {
    const i = s.ep.turns.length - 1;
    d.emit?.({ sessionId: s.draft.id, turn: playTurn(s.ep.turns[i]!, i) });
  }

  async function settle(s: Live): Promise<void> {
    await s.ep.advance(s.opponent, () => emitLast(s), s.draft.id);
    s.draft.turns = s.ep.turns.map(replayTurn);
    s.draft.updatedAt = now();
    if (s.ep.done) await finish(s);
    else store.saveDraft(s.draft);
  }

  async function finish(s: Live): Promise<void> {
    const matchId = store.nextMatchId();
    const { record } = scoreEpisode(
      { domain: d.domain(), scenario: s.scenario, seed: s.draft.seed, judge: judgeEpisode, config: s.config, matchId, index: 0 },
      s.ep.transcript(),
    );
    const human = `human:${s.draft.player}`;
    const { perScenario, wDa, fraudRate } = summarise([s.scenario], [record]);
    const match: MatchRecord = {
      id: matchId,
      createdAt: s.draft.updatedAt,
      seed: s.draft.seed,
      daSpec: s.draft.seat === 'agent' ? human : s.draft.opponent,
      caSpec: s.draft.seat === 'customer' ? human : s.draft.opponent,
      daCheckpoint: s.draft.seat === 'customer' ? s.draft.opponentCheckpoint : null,
      caCheckpoint: s.draft.seat === 'agent' ? s.draft.opponentCheckpoint : null,
      scenarioSet: 'human',
      episodesPerScenario: 1,
      wDa,
      fraudRate,
      perScenario,
      configJson: s.draft.configJson,
    };
    // The opponent's LLM calls go in with the episode, their site the stored episode's id (made
    // after the draft's, which they carried while it was played).
    for (const r of s.calls.records) if (r.site?.episodeId === s.draft.id) r.site = { ...r.site, episodeId: record.id };
    store.finish(
      s.draft.id,
      match,
      record,
      {
        episodeId: record.id,
        player: s.draft.player,
        seat: s.draft.seat,
        opponent: s.draft.opponent,
        playedAt: s.draft.updatedAt,
        forkedFrom: s.draft.forkedFrom,
      },
      () => llmStore(d.store.db).writeLedger(s.calls),
    );
    s.calls.written();
    s.episode = record;
    await d.release(s.opponent);
    const finished = [...live.values()].filter((x) => x.episode !== null);
    for (const old of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) live.delete(old.draft.id);
  }

  /** Open a new session from a draft: nothing is stored unless the opening moves succeed. */
  async function begin(draft: PlayDraft): Promise<PlayView> {
    const s = await open(draft);
    try {
      await settle(s);
    } catch (e) {
      await d.release(s.opponent);
      throw e;
    }
    live.set(draft.id, s);
    return view(s);
  }

  /** Run `fn` on the session after its earlier moves; a failure drops it from memory, so the next call reloads the last saved draft. */
  async function withSession<T>(id: string, fn: (s: Live) => Promise<T> | T): Promise<T> {
    let s = live.get(id);
    if (!s) {
      const draft = store.getDraft(id);
      if (!draft) throw new PlayError(`no unfinished play session "${id}" (finished sessions are stored as episodes; discarded ones are gone)`);
      s = await open(draft);
      live.set(id, s);
    }
    const cur = s;
    const run = cur.queue.then(() => fn(cur));
    cur.queue = run.catch(async (e: unknown) => {
      if (!(e instanceof PlayError) && live.get(id) === cur) {
        live.delete(id);
        await d.release(cur.opponent);
      }
    });
    return run;
  }

  function newDraft(a: {
    player: string;
    seat: Seat;
    opponent: string;
    scenario: Scenario;
    seed: number;
    config: SparringConfig;
    forkedFrom: PlayDraft['forkedFrom'];
    turns: ReplayTurn[];
  }): PlayDraft {
    const t = now();
    return {
      id: `P-${randomUUID().slice(0, 8)}`,
      createdAt: t,
      updatedAt: t,
      player: a.player,
      seat: a.seat,
      opponent: a.opponent,
      opponentCheckpoint: null,
      scenarioId: a.scenario.id,
      seed: a.seed,
      configJson: JSON.stringify(a.config),
      forkedFrom: a.forkedFrom,
      turns: a.turns,
    };
  }

  const handlers: PlayHandlers = {
    'play/setup': () => ({
      scenarios: d.domain().scenarios.map((s) => ({ id: s.id, title: s.title, set: s.set, fraudReference: s.fraudReference })),
      tools: TOOL_NAMES.map((name) => ({ name, fields: toolFields(name) })),
      maxMessageChars: MAX_MESSAGE_CHARS,
    }),

    'play/start': (a) => {
      const seed = a.seed ?? Math.floor(Math.random() * 2 ** 31);
      // No scenario named: Sparring draws an arena scenario (and so the hidden intent) from the seed.
      const scenario =
        a.scenarioId !== undefined ? scenarioById(a.scenarioId) : new Rng(deriveSeed(seed, 'play-scenario')).pick(selectScenarios(d.domain(), 'arena'));
      return begin(newDraft({ player: a.player, seat: a.seat, opponent: a.opponent, scenario, seed, config: DEFAULT_CONFIG, forkedFrom: null, turns: [] }));
    },

    'play/fork': (a) => {
      const source = d.store.getEpisode(a.episodeId);
      if (!source) throw new PlayError(`no episode "${a.episodeId}" in this lab`);
      if (a.turn >= source.turns.length) throw new PlayError(`turn ${a.turn}: episode ${a.episodeId} has turns 0–${source.turns.length - 1}`);
      const match = d.store.getMatch(source.matchId);
      const config = match ? (JSON.parse(match.configJson) as SparringConfig) : DEFAULT_CONFIG;
      const stored = a.seat === 'customer' ? match?.daSpec : match?.caSpec;
      const opponent = a.opponent ?? stored;
      if (opponent === undefined || opponent.startsWith('human:')) {
        throw new PlayError(`opponent: episode ${a.episodeId} had a person in the ${opponentRole(a.seat)} seat; choose a policy for it`);
      }
      const turns = source.turns.slice(0, a.turn).map((t): ReplayTurn => ({ role: t.role, text: t.text, toolResult: t.toolResult }));
      return begin(
        newDraft({
          player: a.player,
          seat: a.seat,
          opponent,
          scenario: scenarioById(source.scenarioId),
          seed: source.seed,
          config,
          forkedFrom: { episodeId: a.episodeId, turn: a.turn },
          turns,
        }),
      );
    },

    'play/act': ({ sessionId, action }) =>
      withSession(sessionId, async (s) => {
        if (s.episode) throw new PlayError(`session ${sessionId} is over; its episode is ${s.episode.id}`);
        s.ep.act(action); // throws, changing nothing, on an invalid move
        emitLast(s);
        await settle(s);
        return view(s);
      }),

    'play/resume': ({ sessionId }) => withSession(sessionId, view),

    'play/discard': async ({ sessionId }) => {
      const s = live.get(sessionId);
      if (s?.episode) throw new PlayError(`session ${sessionId} is over; its episode ${s.episode.id} is stored`);
      const had = store.deleteDraft(sessionId);
      if (s) {
        live.delete(sessionId);
        await d.release(s.opponent);
      }
      if (!had && !s) throw new PlayError(`no unfinished play session "${sessionId}"`);
      return { ok: true as const };
    },

    'play/sessions': () =>
      store.listDrafts().map((x): PlaySessionSummary => ({
        sessionId: x.id,
        player: x.player,
        seat: x.seat,
        opponent: x.opponent,
        opponentCheckpoint: x.opponentCheckpoint,
        turns: x.turns.length,
        updatedAt: x.updatedAt,
        forkedFrom: x.forkedFrom,
      })),

    'play/episodes': () =>
      store.listHumanEpisodes({ limit: EPISODE_LIST_LIMIT }).flatMap((m) => {
        const e = d.store.getEpisode(m.episodeId);
        if (!e) return [];
        const match = d.store.getMatch(e.matchId);
        const opponentCheckpoint = (m.seat === 'customer' ? match?.daCheckpoint : match?.caCheckpoint) ?? null;
        return [{ ...m, opponentCheckpoint, winner: e.winner, rDa: e.rDa, rCa: e.rCa }];
      }),
  };

  return {
    handlers,
    async close() {
      for (const s of live.values()) if (!s.episode) await d.release(s.opponent);
      live.clear();
    },
  };
}

function replayTurn(t: Turn): ReplayTurn {
  return t.role === 'customer' ? { role: 'customer', text: t.text } : { role: 'agent', text: t.raw, toolResult: t.toolResult ?? null };
}

function playTurn(t: Turn, index: number): PlayTurn {
  if (t.role === 'customer') {
    return { index, role: 'customer', actionType: null, said: t.text, thinking: null, tool: null, toolArgs: null, toolResult: null, parseError: null };
  }
  const a = t.action;
  return {
    index,
    role: 'agent',
    actionType: a?.action_type ?? null,
    said: a && a.action_type !== 'tool_call' ? a.content : null,
    thinking: a?.thinking || null,
    tool: a?.action_type === 'tool_call' ? a.content.trim() : null,
    toolArgs: a?.action_type === 'tool_call' ? a.tool_args : null,
    toolResult: t.toolResult ?? null,
    parseError: t.parseError ?? null,
  };
}

function view(s: Live): PlayView {
  const brief = s.ep.customerBrief();
  // The agent seat learns who it was talking to only once the call is over.
  const reveal = s.draft.seat === 'customer' || s.episode !== null;
  return {
    sessionId: s.draft.id,
    player: s.draft.player,
    seat: s.draft.seat,
    opponent: s.draft.opponent,
    opponentCheckpoint: s.draft.opponentCheckpoint,
    status: s.episode ? 'finished' : 'playing',
    forkedFrom: s.draft.forkedFrom,
    customer: reveal
      ? {
          intent: brief.intent,
          scenarioId: s.scenario.id,
          scenarioTitle: s.scenario.title,
          situation: brief.situation,
          name: brief.name,
          facts: { ...brief.facts },
        }
      : null,
    callerPhone: s.ep.callerPhone(),
    turns: s.ep.turns.map(playTurn),
    yourTurn: !s.ep.done && s.ep.next === s.draft.seat,
    daSteps: s.ep.daSteps,
    maxDaTurns: s.config.arena.maxDaTurns,
    episode: s.episode,
  };
}

/** A tool's argument form, read off the schema the tools backend validates with. */
function toolFields(name: (typeof TOOL_NAMES)[number]) {
  const js = z.toJSONSchema(toolArgSchemas[name]) as { properties?: Record<string, { type?: string; enum?: string[] }>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([field, p]) => ({
    name: field,
    type: p.enum ? ('enum' as const) : ((p.type ?? 'string') as 'string' | 'number' | 'integer' | 'boolean'),
    required: (js.required ?? []).includes(field),
    ...(p.enum ? { options: p.enum } : {}),
  }));
}
