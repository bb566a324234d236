/**
 * Routing and resolution: which tool the agent called, whether it did its job, and whether a
 * later message told the customer its result (with the result's details, in words only, or as raw
 * tool fields).
 */
import { isDomainTool } from '../domain/types';
import type { AgentTurn, ToolResult } from '../world/transcript';
import type { Compiled, JudgeConfig } from './config';
import { findAmounts, findDates, toCents } from './claims/text';

export function toolName(t: AgentTurn): string | null {
  return t.action?.action_type === 'tool_call' ? t.action.content.trim() : null;
}

/**
 * Did the tool do its job? A check_card_status that leaves the card `blocked` has not: the tool
 * lifts fraud-prevention holds when asked (`unblock: true`), so a blocked card after the call means
 * the DA did not ask. Other successful results are their own effect.
 */
export function effectAchieved(r: ToolResult): boolean {
  if (!r.ok) return false;
  if (r.tool === 'check_card_status') return !(r.data.status === 'blocked' && r.data.unblocked !== true);
  return true;
}

/** How a message relates to a tool result: it quotes values from it, only names the outcome in words, or neither. */
export type Reference = 'values' | 'words' | 'none';

export function referencesResult(text: string, r: ToolResult, cfg: JudgeConfig): Reference {
  const lower = text.toLowerCase().replace(/’/g, "'");
  if (!r.ok) return cfg.errorCues.some((w) => lower.includes(w)) ? 'values' : 'none';
  const cents = new Set(findAmounts(text).map((a) => a.cents));
  const numbers = new Set([...lower.matchAll(/\b\d+\b/g)].map((m) => +m[0]));
  const dates = findDates(text).map((d) => d.date);
  let hit = false;
  const walk = (v: unknown): void => {
    if (hit) return;
    if (typeof v === 'number') hit = cents.has(toCents(v)) || (Number.isInteger(v) && numbers.has(v));
    else if (typeof v === 'string') {
      hit = v.length >= 3 && lower.includes(v.toLowerCase());
      if (!hit && /^\d{4}-\d{2}-\d{2}$/.test(v)) hit = dates.some((d) => d.m === +v.slice(5, 7) && d.d === +v.slice(8, 10));
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(r.data);
  if (hit) return 'values';
  return isDomainTool(r.tool) && cfg.explainCues[r.tool].some((w) => lower.includes(w)) ? 'words' : 'none';
}

/** Raw tool output read out to the customer: `field=value`, snake_case field names, JSON. */
export function rawFieldDump(text: string, c: Compiled): boolean {
  if (/\b[a-z_.]+\s*=\s*\S|[{}]|"\w+"\s*:/.test(text)) return true;
  const snake = text.match(/\b[a-z]+_[a-z_]+\b/g) ?? [];
  return snake.some((w) => !c.cfg.idPrefixes.some((p) => w.startsWith(`${p}_`)));
}
