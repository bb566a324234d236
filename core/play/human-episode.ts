/**
 * One episode with a person in one seat (RL-ADA's customer or agent) and a policy in the other.
 * It is an arena episode in every other way: the same seeded CustomerEnvironment, the same DA
 * wire format and tool schemas for the agent's actions, the same judge and rewards at the end
 * (`scoreEpisode`). A take-over starts from the turns of a stored episode, replayed on the same
 * seeded world: the replay must give back the stored tool results, or the fork is refused.
 */
import type { CaPolicy, DaPolicy } from '../agents/policy';
import type { Domain, Scenario } from '../domain/types';
import { isToolName } from '../domain/types';
import type { SparringConfig } from '../config';
import { deriveSeed, Rng } from '../random';
import { formatDaAction, parseDaOutput } from '../wire';
import type { ActionType } from '../wire';
import { toolArgSchemas } from '../world/backend';
import { CustomerEnvironment } from '../world/environment';
import type { Role } from '../world/environment';
import type { Transcript, Turn } from '../world/transcript';
import { issueSentence } from '../issue-text';

/** The seat a person takes: the customer (against a DA) or the agent (against a CA). */
export type Seat = Role;

/** The longest message a person may send in one turn, in characters. */
export const MAX_MESSAGE_CHARS = 1000;

/** What a person does on their turn. `say` is the customer's; the others are the agent's. */
export type HumanAction =
  | { kind: 'say'; text: string }
  | { kind: 'speak'; text: string; thinking?: string }
  | { kind: 'tool_call'; tool: string; args: Record<string, unknown>; thinking?: string }
  | { kind: 'end_call'; text?: string; thinking?: string };

/** A turn of a stored episode, as far as a replay needs it. */
export interface ReplayTurn {
  role: 'customer' | 'agent';
  /** The customer's words or the DA's raw output. */
  text: string;
  /** The stored tool result, checked against the replay's. */
  toolResult?: unknown;
}

/** A move a person may not make (empty, too long, wrong seat, arguments that fail the tool's schema). */
export class PlayError extends Error {
  override name = 'PlayError';
}

export interface HumanEpisodeArgs {
  domain: Domain;
  scenario: Scenario;
  seed: number;
  seat: Seat;
  config: SparringConfig;
  /** Turns already played (a resumed draft or the head of a forked episode), replayed in order. */
  replay?: readonly ReplayTurn[];
}

export class HumanEpisode {
  private readonly env: CustomerEnvironment;

  constructor(readonly args: HumanEpisodeArgs) {
    this.env = new CustomerEnvironment(args.config.arena.maxDaTurns);
    this.env.reset(args.scenario, args.seed);
    for (const [i, t] of (args.replay ?? []).entries()) {
      if (this.env.state().done) throw new PlayError(`turn ${i}: the episode already ended at turn ${i - 1}`);
      if (this.env.state().next !== t.role) throw new PlayError(`turn ${i}: it is the ${this.env.state().next}'s turn, but the stored turn is the ${t.role}'s`);
      const { turn } = this.env.step(t.role === 'customer' ? { role: 'customer', text: t.text } : { role: 'agent', raw: t.text });
      const replayed = turn.role === 'agent' ? (turn.toolResult ?? null) : null;
      if (t.toolResult !== undefined && JSON.stringify(replayed) !== JSON.stringify(t.toolResult ?? null)) {
        throw new PlayError(
          `turn ${i}: replaying the stored turns on the seeded world gave another tool result than the one stored; the world or the domain changed since`,
        );
      }
    }
  }

  get seat(): Seat {
    return this.args.seat;
  }
  get done(): boolean {
    return this.env.state().done;
  }
  /** Whose move it is, or null when the episode is over. */
  get next(): Role | null {
    return this.env.state().next;
  }
  get turns(): readonly Turn[] {
    return this.env.state().turns;
  }
  get daSteps(): number {
    return this.env.state().daSteps;
  }
  /** The customer's private brief (intent, situation, facts, name): the customer seat's to see. */
  customerBrief() {
    return this.env.observeCustomer();
  }
  /** The caller ID, which is all the agent knows of the customer at first. */
  callerPhone(): string {
    return this.env.observeAgent().caller.phone;
  }
  transcript(): Transcript {
    return this.env.transcript();
  }

  /**
   * Let the policy in the other seat move until it is the person's turn or the episode ends.
   * Each opponent move draws from its own stream, seeded by the turn's position, so a resumed or
   * forked episode gets the same opponent moves as one played straight through. `episodeId`: the
   * call site an LLM opponent's calls are recorded under.
   */
  async advance(opponent: DaPolicy | CaPolicy, onTurn?: (t: Turn) => void, episodeId?: string): Promise<Turn[]> {
    const out: Turn[] = [];
    while (!this.done && this.next !== this.seat) {
      const rng = new Rng(deriveSeed(this.args.seed, 'play', this.next!, this.turns.length));
      // Where an LLM opponent's call is recorded: the episode (a provisional id until it is stored) and the turn.
      const ctx = episodeId === undefined ? undefined : { episodeId, turn: this.turns.length };
      const r =
        this.next === 'customer'
          ? this.env.step({ role: 'customer', text: await (opponent as CaPolicy).speak(this.env.observeCustomer(), rng, ctx) })
          : this.env.step({ role: 'agent', raw: await (opponent as DaPolicy).act(this.env.observeAgent(), rng, ctx) });
      out.push(r.turn);
      onTurn?.(r.turn);
    }
    return out;
  }

  /** Check a person's move and, when it is valid, take it. An invalid move changes nothing. */
  act(action: HumanAction): Turn {
    if (this.done) throw new PlayError('the episode is over');
    if (this.next !== this.seat) throw new PlayError(`it is the ${this.next}'s turn, not yours`);
    if (this.seat === 'customer') {
      if (action.kind !== 'say') throw new PlayError(`the customer speaks ("say"); "${action.kind}" is an agent's action`);
      return this.env.step({ role: 'customer', text: checkMessage(action.text, 'text') }).turn;
    }
    return this.env.step({ role: 'agent', raw: agentOutput(action) }).turn;
  }
}

/** A person's message, trimmed: refused when empty or longer than MAX_MESSAGE_CHARS. */
export function checkMessage(text: string, field: string): string {
  const t = text.trim();
  if (t === '') throw new PlayError(`${field}: the message is empty`);
  if (t.length > MAX_MESSAGE_CHARS) throw new PlayError(`${field}: the message is ${t.length} characters; at most ${MAX_MESSAGE_CHARS}`);
  return t;
}

/**
 * The agent seat's move as a DA output in the wire format, checked as any DA output is: the one
 * parser, then the tool's argument schema. A person's form never sends an unparseable output or
 * arguments the tools backend would refuse; such a move is turned back with the field named.
 */
export function agentOutput(action: HumanAction): string {
  const thinking = (action.kind !== 'say' ? action.thinking : undefined)?.trim() ?? '';
  if (thinking.length > MAX_MESSAGE_CHARS) throw new PlayError(`thinking: ${thinking.length} characters; at most ${MAX_MESSAGE_CHARS}`);
  let type: ActionType;
  let content: string;
  let toolArgs: Record<string, unknown> = {};
  switch (action.kind) {
    case 'say':
      throw new PlayError('the agent acts with speak, tool_call or end_call; "say" is the customer\'s');
    case 'speak':
      [type, content] = ['speak', checkMessage(action.text, 'text')];
      break;
    case 'end_call':
      [type, content] = ['end_call', action.text === undefined || action.text.trim() === '' ? '' : checkMessage(action.text, 'text')];
      break;
    case 'tool_call': {
      if (!isToolName(action.tool)) throw new PlayError(`tool: no tool named "${action.tool}"`);
      const r = toolArgSchemas[action.tool].safeParse(action.args);
      if (!r.success) {
        const issue = r.error.issues[0]!;
        throw new PlayError(`${action.tool}: ${issueSentence(issue, issue.path.length ? issue.path : ['arguments'])}`);
      }
      [type, content, toolArgs] = ['tool_call', action.tool, action.args];
      break;
    }
  }
  const raw = formatDaAction({ thinking, action_type: type, content, tool_args: toolArgs });
  const parsed = parseDaOutput(raw);
  if (!parsed.ok) throw new PlayError(`the action does not parse as a DA output: ${parsed.error}`);
  return raw;
}
