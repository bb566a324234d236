/**
 * Dates and counts without Intl: the first Intl formatter a page creates loads locale data on the
 * main thread (tens of milliseconds; hundreds on a busy 2-core box), enough to stall a streaming
 * dashboard. Lab users read ISO-like timestamps just as well.
 */
import type { CheckpointRef, LlmCallTotals } from '../../core/contract/contract';

const pad = (n: number) => String(n).padStart(2, '0');

/** "2026-11-29 19:45" in local time; the input as it was when it is not a date. */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * `x.toFixed(digits)` without the sign of a value that rounds to zero: −0.001 is "0.00", not
 * "-0.00". core/stats/format.ts for the hosts (the renderer imports no values from core/ but the
 * contract).
 */
export function fixed(x: number, digits: number): string {
  const s = x.toFixed(digits);
  return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
}

/** A difference with its sign always written, the minus as U+2212: "+1.2", "−0.3", "+0.0". */
export function signedFixed(x: number, digits: number): string {
  const s = fixed(x, digits);
  return s.startsWith('-') ? `−${s.slice(1)}` : `+${s}`;
}

/**
 * A mean with its interval: "90.0 [84.1, 95.9]", or below the values a t interval needs (the
 * engine sends none) "90.0 (n=2: too few for an interval)"; '–' with no value. The hosts' copy is
 * core/stats/format.ts meanText.
 */
export function meanText(m: { n: number; mean: number; ci: readonly [number, number] | null }, f: (v: number) => string): string {
  if (!m.n) return '–';
  return m.ci ? `${f(m.mean)} [${f(m.ci[0])}, ${f(m.ci[1])}]` : `${f(m.mean)} (n=${m.n}: too few for an interval)`;
}

/** 12345 → "12,345". */
export function formatCount(n: number): string {
  const s = String(Math.trunc(Math.abs(n)));
  return `${n < 0 ? '−' : ''}${s.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
}

/**
 * A policy SPEC and the checkpoint it resolved to: "latest → DA3"; the SPEC alone when it is the
 * checkpoint's own name or no checkpoint (scripted, a person). host/format/policy.ts for the CLI.
 */
export function policyLabel(spec: string, checkpoint: CheckpointRef | null | undefined): string {
  return checkpoint && checkpoint.name !== spec ? `${spec} → ${checkpoint.name}` : spec;
}

/**
 * What a match's or an episode's LLM calls cost, for a table cell: tokens in/out and the mean
 * latency per call ("1,204 in · 310 out · 42 ms/call"), with the cached calls counted, and the
 * LLM judge's share when one judged ("· judge 18 calls, 9,120 in").
 */
export function llmCost(t: LlmCallTotals): string {
  const perCall = t.calls > 0 ? t.latencyMs / t.calls : 0;
  const ms = perCall >= 100 ? perCall.toFixed(0) : perCall.toFixed(1);
  const judge = t.judge ? ` · judge ${formatCount(t.judge.calls)} call${t.judge.calls === 1 ? '' : 's'}, ${formatCount(t.judge.tokensIn)} in` : '';
  return `${formatCount(t.tokensIn)} in · ${formatCount(t.tokensOut)} out · ${ms} ms/call${t.cached ? ` · ${formatCount(t.cached)} cached` : ''}${judge}`;
}

/** JSON text indented for reading; text that is not JSON as it is. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
