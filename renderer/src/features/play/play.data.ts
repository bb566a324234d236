/**
 * Pure helpers of the Play screen: a tool form's string inputs become typed tool arguments (the
 * engine validates them against the tool's schema), and the ids a player may need — caller ID,
 * account, card and transaction ids from earlier tool results — are offered as suggestions.
 */
import type { PlayTurn, ToolField } from '../../../../core/contract/contract';

/**
 * Form values → tool arguments. Empty optional fields are left out; numbers are parsed (a value
 * that is not a number is passed as typed, so the engine's schema names the field).
 */
export function toolArgs(fields: readonly ToolField[], values: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const raw = (values[f.name] ?? '').trim();
    if (f.type === 'boolean') {
      if (raw === 'true' || raw === 'false') out[f.name] = raw === 'true';
      continue;
    }
    if (raw === '') {
      if (f.required) out[f.name] = '';
      continue;
    }
    if (f.type === 'number' || f.type === 'integer') {
      const n = Number(raw);
      out[f.name] = Number.isFinite(n) ? n : raw;
    } else out[f.name] = raw;
  }
  return out;
}

/** Values a string field might want: the caller's phone and every *_id seen in a tool result, newest first. */
export function idSuggestions(turns: readonly PlayTurn[], callerPhone: string): Record<string, string[]> {
  const found = new Map<string, Set<string>>([['phone', new Set([callerPhone])]]);
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (typeof v !== 'object' || v === null) return;
    for (const [k, x] of Object.entries(v)) {
      if (k.endsWith('_id') && typeof x === 'string') {
        const set = found.get(k) ?? new Set<string>();
        set.add(x);
        found.set(k, set);
      } else walk(x);
    }
  };
  for (const t of [...turns].reverse()) if (t.toolResult?.ok) walk(t.toolResult.data);
  const out: Record<string, string[]> = {};
  for (const [k, set] of found) out[k] = [...set];
  // Transfers name both ends with the account ids.
  if (out.account_id) out.from_account_id = out.to_account_id = out.account_id;
  return out;
}

/**
 * An intent identifier in plain words for the person in the customer's seat:
 * `card_payment_not_recognised` → "Card payment not recognised". The identifier stays available
 * to researchers (the brief's tooltip, the transcript).
 */
export function intentInWords(intent: string): string {
  const s = intent.replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim();
  return s ? `${s.charAt(0).toUpperCase()}${s.slice(1)}` : intent;
}

/**
 * What the customer's seat shows of an agent turn: what the agent said, and that it looked
 * something up; its thinking, tool arguments and raw tool results are the agent's internals
 * (a real caller never sees them), shown only when a researcher asks for them.
 */
export function customerSees(t: PlayTurn): { said: string | null; usedTool: boolean } {
  return { said: t.said, usedTool: t.role === 'agent' && t.tool !== null };
}
