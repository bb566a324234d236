/**
 * The Experiments screen's corpus picker: DA0's SFT may add the rows of a corpus imported into the
 * lab (`sparring import-banking77`). It reads and writes the config's `bootstrap.sft.corpus` (the
 * corpus's content hash, core/coevolution/run-config.ts), so the JSON editor and the picker never
 * disagree; '' is the bank alone.
 */
import type { CorpusInfo } from '../../../../core/contract/contract';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The corpus hash a config text gives DA0's SFT; '' when none or not JSON. */
export function corpusOf(text: string): string {
  try {
    const cfg = JSON.parse(text) as { bootstrap?: { sft?: { corpus?: unknown } } };
    const hash = cfg.bootstrap?.sft?.corpus;
    return typeof hash === 'string' ? hash : '';
  } catch {
    return '';
  }
}

/**
 * The config text with `bootstrap.sft.corpus` set to `hash` ('' removes it); unchanged when not
 * JSON or when the config has no `bootstrap.sft` block to put it in (the engine names what is missing).
 */
export function withCorpus(text: string, hash: string): string {
  let cfg: unknown;
  try {
    cfg = JSON.parse(text);
  } catch {
    return text;
  }
  if (!isObject(cfg) || !isObject(cfg.bootstrap) || !isObject(cfg.bootstrap.sft)) return text;
  const { corpus: _old, ...sft } = cfg.bootstrap.sft;
  return JSON.stringify({ ...cfg, bootstrap: { ...cfg.bootstrap, sft: hash === '' ? sft : { ...sft, corpus: hash } } }, null, 2);
}

/** How a corpus reads in the picker, e.g. "banking77 (import 1, 10,003 rows)". */
export function corpusLabel(c: Pick<CorpusInfo, 'id' | 'source' | 'rows'>): string {
  return `${c.source} (import ${c.id}, ${c.rows.toLocaleString('en-US')} rows)`;
}
