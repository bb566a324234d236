/**
 * The DA wire format (RL-ADA Appendix D), the same for every DA backend:
 * `{"thinking": "...", "action_type": "speak|tool_call|end_call", "content": "message or tool name", "tool_args": {}}`.
 *
 * One parser for all of them. An output is either a valid action or unparseable, with the reason;
 * it is never silently repaired (no trailing-comma fixes, no extraction from prose), because a
 * repaired output would earn r_format it did not deserve.
 */

export const ACTION_TYPES = ['speak', 'tool_call', 'end_call'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export interface DaAction {
  /** The DA's reasoning before acting; may be empty, which forfeits the r_format bonus. */
  thinking: string;
  action_type: ActionType;
  /** The message for speak / end_call, the tool name for tool_call. */
  content: string;
  /** Tool arguments for tool_call; `{}` otherwise. */
  tool_args: Record<string, unknown>;
}

export type ParseResult = { ok: true; action: DaAction } | { ok: false; error: string };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parse one raw DA output. Whitespace around the JSON is allowed; anything else is not. */
export function parseDaOutput(raw: string): ParseResult {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    return { ok: false, error: `not valid JSON: ${(e as Error).message}` };
  }
  if (!isPlainObject(value)) return { ok: false, error: 'expected a JSON object' };
  const { thinking, action_type, content, tool_args } = value;
  if (thinking !== undefined && typeof thinking !== 'string') {
    return { ok: false, error: 'field "thinking": expected a string' };
  }
  if (typeof action_type !== 'string' || !(ACTION_TYPES as readonly string[]).includes(action_type)) {
    return { ok: false, error: `field "action_type": expected one of ${ACTION_TYPES.join(', ')}` };
  }
  if (typeof content !== 'string') return { ok: false, error: 'field "content": expected a string' };
  if (tool_args !== undefined && !isPlainObject(tool_args)) {
    return { ok: false, error: 'field "tool_args": expected an object' };
  }
  if (action_type === 'tool_call' && content.trim() === '') {
    return { ok: false, error: 'field "content": a tool_call must name the tool' };
  }
  const extra = Object.keys(value).filter((k) => !['thinking', 'action_type', 'content', 'tool_args'].includes(k));
  if (extra.length > 0) return { ok: false, error: `unknown field "${extra[0]}"` };
  return {
    ok: true,
    action: {
      thinking: thinking ?? '',
      action_type: action_type as ActionType,
      content,
      tool_args: tool_args ?? {},
    },
  };
}

/** Serialise an action in the wire format (what builtin and scripted DAs emit). */
export function formatDaAction(action: DaAction): string {
  return JSON.stringify({
    thinking: action.thinking,
    action_type: action.action_type,
    content: action.content,
    tool_args: action.tool_args,
  });
}
