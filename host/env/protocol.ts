/**
 * The OpenEnv shapes of Sparring's world (meta-pytorch/OpenEnv, rfcs/002-env-spec.md and
 * src/openenv/core/env_server/{types,http_server}.py at commit 685de411, 2026-05-01): what an
 * observation, an action and the state look like for each learning role, how an action becomes
 * the learner's turn, the JSON schemas `GET /schema` serves, and the errors.
 *
 * An observation's fields are the learner's own view (what may go into its prompt); `metadata` is
 * for the trainer (reward, terms, judge verdict, scenario and seed) and must stay out of the prompt.
 */
import type { LearnerObservation, LearnerRole } from '../../core/env/learner-episode';
import type { Scenario } from '../../core/domain/types';
import type { ChatTool } from '../../models/llm/chat-backend';
import { caMessages, caTools } from '../../models/llm/ca-messages';
import { daSystemPrompt, daTools, nativeTurns, wireFromNative } from '../../models/llm/da-messages';

/** OpenEnv's WebSocket error codes (WSErrorCode in types.py); HTTP errors carry the same code. */
export type EnvErrorCode =
  'INVALID_JSON' | 'UNKNOWN_TYPE' | 'VALIDATION_ERROR' | 'EXECUTION_ERROR' | 'CAPACITY_REACHED' | 'SESSION_ERROR' | 'UNAUTHORIZED' | 'FORBIDDEN_ORIGIN';

/**
 * One field's refusal as pydantic reports it (OpenEnv's message models are pydantic models, and
 * FastAPI answers a bad body with `{"detail": [these]}` and 422): `type` is pydantic's error type
 * (`extra_forbidden`, `greater_than_equal`, `int_type`, …), `loc` the path to the field.
 */
export interface FieldError {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** A refusal that names the problem; the session and the server go on. */
export class EnvError extends Error {
  constructor(
    readonly code: EnvErrorCode,
    /** The HTTP status for the same problem. */
    readonly status: number,
    message: string,
    /** Field errors in pydantic's form, when the refusal is of fields. */
    readonly errors?: FieldError[],
  ) {
    super(message);
  }
}

/** A 422 for one field, pydantic-style (`loc` says where), its message naming the field. */
export function fieldError(loc: (string | number)[], type: string, msg: string, input: unknown, ctx?: Record<string, unknown>): EnvError {
  return new EnvError('VALIDATION_ERROR', 422, `${loc.join('.')}: ${msg}`, [{ type, loc, msg, input, ...(ctx ? { ctx } : {}) }]);
}

/** Refuse fields a model does not declare, as pydantic's `extra="forbid"` does (OpenEnv's Action and WS messages). */
export function forbidExtra(obj: Record<string, unknown>, known: readonly string[], at: (string | number)[]): void {
  const extra = Object.keys(obj).filter((k) => !known.includes(k));
  if (extra.length === 0) return;
  const errors = extra.map((k) => ({ type: 'extra_forbidden', loc: [...at, k], msg: 'Extra inputs are not permitted', input: obj[k] }));
  throw new EnvError(
    'VALIDATION_ERROR',
    422,
    `${errors.map((e) => e.loc.join('.')).join(', ')}: extra inputs are not permitted; fields: ${known.join(', ')}`,
    errors,
  );
}

/** The DA's functions: the trained form's (`models/llm/da-messages.ts`), the six tools plus speak and end_call. */
export const DA_TOOLS: ChatTool[] = daTools();
const DA_TOOL_NAMES = DA_TOOLS.map((t) => t.function.name);

/** The customer's one function: the trained form's `say` (`models/llm/ca-messages.ts`). */
export const CA_TOOLS: ChatTool[] = caTools();

/** An OpenAI-style function call: arguments as a JSON string (the OpenAI API's form) or an object. */
interface ToolCallInput {
  name: string;
  arguments?: string | Record<string, unknown>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const bad = (message: string) => new EnvError('VALIDATION_ERROR', 422, message);

/**
 * The learner's turn from an action. DA: `message` is its output in the RL-ADA wire format (passed
 * to the world as is, so an unparseable one earns r_format −3 as any DA's would), or `tool_call`
 * (or OpenAI's `tool_calls` with one entry) names one of DA_TOOLS and becomes the wire format, with
 * `thinking` as its thinking field. CA: `message` is the customer's utterance.
 */
export function actionText(role: LearnerRole, action: unknown, at: (string | number)[] = ['action']): string {
  if (!isObject(action)) throw fieldError(at, 'model_type', 'the action must be a JSON object, e.g. {"message": "..."}', action);
  forbidExtra(action, role === 'DA' ? ['message', 'tool_call', 'tool_calls', 'thinking', 'metadata'] : ['message', 'metadata'], at);
  if (action.metadata !== undefined && !isObject(action.metadata))
    throw fieldError([...at, 'metadata'], 'dict_type', 'Input should be a valid dictionary', action.metadata);
  const { message, thinking } = action;
  let call: unknown = action.tool_call;
  if (action.tool_calls !== undefined) {
    if (!Array.isArray(action.tool_calls) || action.tool_calls.length !== 1)
      throw bad('"tool_calls" must hold exactly one call (the DA makes one move a turn)');
    const c: unknown = action.tool_calls[0];
    call = isObject(c) && isObject(c.function) ? c.function : c;
  }
  if (message !== undefined && call !== undefined) throw bad('give either "message" or a tool call, not both');
  if (call === undefined) {
    if (typeof message !== 'string') {
      throw bad(
        role === 'DA'
          ? '"message" must be a string: the DA output in the wire format {"thinking", "action_type", "content", "tool_args"} (or send "tool_call")'
          : '"message" must be a string: the customer\'s utterance',
      );
    }
    return message;
  }
  if (thinking !== undefined && typeof thinking !== 'string') throw bad('"thinking" must be a string');
  if (!isObject(call) || typeof call.name !== 'string') throw bad('a tool call needs "name" (string) and "arguments" (JSON string or object)');
  const c = call as unknown as ToolCallInput;
  if (!DA_TOOL_NAMES.includes(c.name)) throw bad(`unknown tool "${c.name}"; tools: ${DA_TOOL_NAMES.join(', ')}`);
  let args: Record<string, unknown> = {};
  if (typeof c.arguments === 'string') {
    let parsed: unknown;
    try {
      parsed = c.arguments.trim() === '' ? {} : JSON.parse(c.arguments);
    } catch (e) {
      throw bad(`tool "${c.name}": "arguments" is not valid JSON: ${(e as Error).message}`);
    }
    if (!isObject(parsed)) throw bad(`tool "${c.name}": "arguments" must encode a JSON object`);
    args = parsed;
  } else if (isObject(c.arguments)) args = c.arguments;
  else if (c.arguments !== undefined) throw bad(`tool "${c.name}": "arguments" must be a JSON string or an object`);
  // The one mapping from a function call to the wire format (`wireFromNative`): `thinking` from the
  // arguments, else the action's own field.
  return wireFromNative(thinking ?? '', [{ name: c.name, arguments: args }]);
}

/**
 * The observation's own fields (the learner's view), without `metadata`. The DA's tool specs come
 * with the first observation of an episode only (`withTools`): they never change.
 */
export function observationView(o: LearnerObservation, scenario: Scenario, withTools = true, ended = false): Record<string, unknown> {
  if (o.role === 'DA') {
    const v = o.view;
    return {
      role: 'DA',
      caller: v.caller,
      messages: [{ role: 'system', content: daSystemPrompt(v, 'native') }, ...nativeTurns(v.turns, ended)],
      ...(withTools ? { tools: DA_TOOLS } : {}),
      turns: v.turns,
      da_steps: v.daSteps,
      max_da_turns: v.maxDaTurns,
    };
  }
  const v = o.view;
  const persona = scenario.persona ?? null;
  // The trained form (`models/llm/ca-messages.ts`): what an LLM CA plays with, and what TRL's loop
  // builds turn by turn from these messages' last tool message.
  const messages = caMessages(v, 'native', ended);
  return {
    role: 'CA',
    intent: v.intent,
    situation: v.situation,
    facts: v.facts,
    name: v.name,
    persona,
    dialogue: v.dialogue,
    ...(v.adversity ? { adversity: v.adversity } : {}),
    messages,
    ...(withTools ? { tools: CA_TOOLS } : {}),
  };
}

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required, additionalProperties: false });

/** `GET /schema`: JSON schemas of the action, the observation and the state for this role. */
export function schemas(role: LearnerRole): { action: unknown; observation: unknown; state: unknown } {
  const metadata = {
    type: 'object',
    description:
      'For the trainer, never the prompt: session_id, episode_id, scenario, seed, step; at the end also match_id, r_da, r_ca, terms, turn_rewards, judge, winner, adversities.',
  };
  const action =
    role === 'DA'
      ? {
          title: 'SparringDaAction',
          description: 'One DA move: "message" in the RL-ADA wire format, or one OpenAI-style tool call.',
          oneOf: [
            obj(
              {
                message: { type: 'string', description: '{"thinking": "...", "action_type": "speak|tool_call|end_call", "content": "...", "tool_args": {}}' },
                metadata: { type: 'object' },
              },
              ['message'],
            ),
            obj(
              {
                tool_call: obj({ name: { enum: DA_TOOL_NAMES }, arguments: { type: ['string', 'object'] } }, ['name']),
                thinking: { type: 'string' },
                metadata: { type: 'object' },
              },
              ['tool_call'],
            ),
            obj({ tool_calls: { type: 'array', minItems: 1, maxItems: 1 }, thinking: { type: 'string' }, metadata: { type: 'object' } }, ['tool_calls']),
          ],
        }
      : {
          title: 'SparringCaAction',
          ...obj({ message: { type: 'string', description: "the customer's utterance" }, metadata: { type: 'object' } }, ['message']),
        };
  const observation =
    role === 'DA'
      ? {
          title: 'SparringDaObservation',
          type: 'object',
          properties: {
            role: { const: 'DA' },
            caller: obj({ phone: { type: 'string' } }),
            messages: { type: 'array', description: 'the dialogue as OpenAI chat messages (system, user = customer, assistant, tool results)' },
            tools: { type: 'array', description: 'OpenAI function specs: the six banking tools, speak and end_call (in the first observation of an episode)' },
            turns: { type: 'array', description: "the environment's turns: customer text, the DA's raw outputs, parsed actions and tool results" },
            da_steps: { type: 'integer' },
            max_da_turns: { type: 'integer' },
            metadata,
          },
        }
      : {
          title: 'SparringCaObservation',
          type: 'object',
          properties: {
            role: { const: 'CA' },
            intent: { type: 'string', description: 'the hidden intent this customer acts out (never to be named)' },
            situation: { type: 'string' },
            facts: { type: 'object', description: 'merchant, amount, date… consistent with the account' },
            name: { type: 'string' },
            persona: { type: ['object', 'null'] },
            dialogue: { type: 'array', description: 'spoken turns only: the customer and what the agent said' },
            adversity: { type: 'object', description: "the scenario's conversational adversity for this utterance, when any" },
            messages: {
              type: 'array',
              description:
                "the dialogue in the trained form: system, the agent's first words (user), the customer's say calls and the agent's answers as their results",
            },
            tools: { type: 'array', description: 'OpenAI function spec of say (in the first observation of an episode)' },
            metadata,
          },
        };
  const state = {
    title: 'SparringState',
    type: 'object',
    properties: {
      episode_id: { type: ['string', 'null'] },
      step_count: { type: 'integer' },
      session_id: { type: 'string' },
      model: { type: 'string' },
      role: { const: role },
      scenario: { type: ['string', 'null'] },
      seed: { type: ['integer', 'null'] },
      done: { type: 'boolean' },
      match_id: { type: 'string' },
      episodes_stored: { type: 'integer' },
      last_episode: { type: ['object', 'null'], description: 'the last stored episode: id, r_da, r_ca, terms, winner' },
    },
  };
  return { action, observation, state };
}
