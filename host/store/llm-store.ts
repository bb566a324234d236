/**
 * The lab's LLM tables (migrations 11, 16 and 20): endpoints and local GGUF files saved by name, call
 * records and the response cache. Typed rows at the boundary; the API key itself is never written, only the name of its
 * environment variable.
 */
import type { Database } from 'better-sqlite3';
import type { CallRecord, ChatResult } from '../../models/llm/chat-backend';
import type { PendingLedger } from '../../models/llm/ledger';
import { GGUF_GPUS, GGUF_MAX_SEQUENCES } from '../../models/llm/gguf-backend';
import type { GgufConfig, GgufGpu } from '../../models/llm/gguf-backend';
import type { EndpointConfig } from '../../models/llm/openai-backend';

interface EndpointRow {
  name: string;
  base_url: string;
  model: string;
  api_key_env: string | null;
  tool_calls: 'native' | 'text';
  max_concurrency: number;
  created_at: string;
}

/** Calls and tokens of one episode (or a whole match), for tables and the transcript view. */
export interface CallTotals {
  calls: number;
  cached: number;
  tokensIn: number;
  tokensOut: number;
  latencyMs: number;
  /** The LLM judge's share of these calls (role `judge`); absent when no LLM judged. */
  judge?: Omit<CallTotals, 'judge'>;
}

/** The sums a totals query selects: all calls, then the judge's (`j_…`). */
const TOTALS_COLUMNS = `COUNT(*) AS calls, COALESCE(SUM(cached), 0) AS cached, COALESCE(SUM(tokens_in), 0) AS tokensIn,
  COALESCE(SUM(tokens_out), 0) AS tokensOut, COALESCE(SUM(latency_ms), 0) AS latencyMs,
  COALESCE(SUM(role = 'judge'), 0) AS j_calls, COALESCE(SUM(CASE WHEN role = 'judge' THEN cached END), 0) AS j_cached,
  COALESCE(SUM(CASE WHEN role = 'judge' THEN tokens_in END), 0) AS j_tokensIn, COALESCE(SUM(CASE WHEN role = 'judge' THEN tokens_out END), 0) AS j_tokensOut,
  COALESCE(SUM(CASE WHEN role = 'judge' THEN latency_ms END), 0) AS j_latencyMs`;

interface TotalsRow {
  calls: number;
  cached: number;
  tokensIn: number;
  tokensOut: number;
  latencyMs: number;
  j_calls: number;
  j_cached: number;
  j_tokensIn: number;
  j_tokensOut: number;
  j_latencyMs: number;
}

const totalsOf = (r: TotalsRow): CallTotals => ({
  calls: r.calls,
  cached: r.cached,
  tokensIn: r.tokensIn,
  tokensOut: r.tokensOut,
  latencyMs: r.latencyMs,
  ...(r.j_calls > 0 ? { judge: { calls: r.j_calls, cached: r.j_cached, tokensIn: r.j_tokensIn, tokensOut: r.j_tokensOut, latencyMs: r.j_latencyMs } } : {}),
});

export class EndpointError extends Error {
  override name = 'EndpointError';
}

/** Endpoint names share the policy SPEC namespace, so they may not shadow a SPEC or look like a checkpoint. */
export function checkEndpointName(name: string): void {
  if (!/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(name))
    throw new EndpointError(`endpoint name "${name}": letters, digits, "_", "." and "-", starting with a letter`);
  if (['scripted', 'latest', 'sft', 'builtin'].includes(name)) throw new EndpointError(`endpoint name "${name}" is a policy SPEC already`);
  if (/^(DA|CA)\d+$/.test(name) || /^(DA|CA)-/.test(name)) throw new EndpointError(`endpoint name "${name}" looks like a checkpoint name (DA2, CA1, DA-sft-1)`);
}

interface GgufRow {
  name: string;
  path: string;
  sha256: string;
  gpu: GgufGpu;
  context_size: number;
  threads: number;
  sequences: number;
  created_at: string;
}

const ggufOf = (r: GgufRow): GgufConfig => ({
  name: r.name,
  path: r.path,
  sha256: r.sha256,
  gpu: r.gpu,
  contextSize: r.context_size,
  threads: r.threads,
  sequences: r.sequences,
});

/** The settings of a GGUF model as `models add --gguf` and the Models screen take them; throws naming the field. */
export function checkGgufConfig(cfg: GgufConfig): GgufConfig {
  checkEndpointName(cfg.name);
  if (!(GGUF_GPUS as readonly string[]).includes(cfg.gpu)) throw new EndpointError(`gpu must be one of ${GGUF_GPUS.join(', ')}, got "${cfg.gpu}"`);
  if (!Number.isInteger(cfg.contextSize) || cfg.contextSize < 256)
    throw new EndpointError(`context size must be a whole number of tokens ≥ 256, got ${cfg.contextSize}`);
  if (!Number.isInteger(cfg.threads) || cfg.threads < 0) throw new EndpointError(`threads must be a whole number (0: all cores), got ${cfg.threads}`);
  if (!Number.isInteger(cfg.sequences) || cfg.sequences < 1 || cfg.sequences > GGUF_MAX_SEQUENCES)
    throw new EndpointError(`sequences must be a whole number from 1 to ${GGUF_MAX_SEQUENCES}, got ${cfg.sequences}`);
  return cfg;
}
/** A base URL as the lab stores it (http(s), no trailing slash); throws naming the field. */
export function normalizeBaseUrl(value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new EndpointError(`base URL must be a URL such as http://127.0.0.1:8000/v1, got "${value}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new EndpointError(`base URL must be http(s), got "${value}"`);
  return value.replace(/\/+$/, '');
}

/** Every field of an endpoint as `models add` and the Models screen take it; throws naming the field. */
export function checkEndpointConfig(cfg: EndpointConfig): EndpointConfig {
  checkEndpointName(cfg.name);
  if (cfg.model.trim() === '') throw new EndpointError('model: the id the server serves (see its /v1/models), not empty');
  if (cfg.apiKeyEnv !== null && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(cfg.apiKeyEnv))
    throw new EndpointError(`API key variable must name an environment variable (the key itself is never stored), got "${cfg.apiKeyEnv}"`);
  if (!Number.isInteger(cfg.maxConcurrency) || cfg.maxConcurrency < 1 || cfg.maxConcurrency > 1024)
    throw new EndpointError(`max concurrency must be a whole number from 1 to 1024, got ${cfg.maxConcurrency}`);
  return { ...cfg, baseUrl: normalizeBaseUrl(cfg.baseUrl) };
}

const endpointOf = (r: EndpointRow): EndpointConfig => ({
  name: r.name,
  baseUrl: r.base_url,
  model: r.model,
  apiKeyEnv: r.api_key_env,
  toolCalls: r.tool_calls,
  maxConcurrency: r.max_concurrency,
});

export function llmStore(db: Database) {
  /** A model name is taken by an endpoint or a GGUF file alike. */
  const checkNameFree = (name: string) => {
    checkEndpointName(name);
    if (db.prepare('SELECT 1 FROM llm_endpoints WHERE name = ? UNION ALL SELECT 1 FROM llm_gguf_models WHERE name = ?').get(name, name)) {
      throw new EndpointError(`model "${name}" exists already; remove it first (sparring models remove ${name})`);
    }
  };
  return {
    /** Save a local GGUF file by name (its config as `ggufConfigOf` made it, hash included). */
    addGguf(cfg: GgufConfig, createdAt = new Date().toISOString()): void {
      checkGgufConfig(cfg);
      checkNameFree(cfg.name);
      db.prepare('INSERT INTO llm_gguf_models (name, path, sha256, gpu, context_size, threads, sequences, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
        cfg.name,
        cfg.path,
        cfg.sha256,
        cfg.gpu,
        cfg.contextSize,
        cfg.threads,
        cfg.sequences,
        createdAt,
      );
    },
    getGguf(name: string): GgufConfig | undefined {
      const r = db.prepare('SELECT * FROM llm_gguf_models WHERE name = ?').get(name) as GgufRow | undefined;
      return r && ggufOf(r);
    },
    listGguf(): GgufConfig[] {
      return (db.prepare('SELECT * FROM llm_gguf_models ORDER BY name').all() as GgufRow[]).map(ggufOf);
    },
    /** The model saved under `name`, an endpoint or a GGUF file; undefined when there is none. */
    saved(name: string): { endpoint: EndpointConfig } | { gguf: GgufConfig } | undefined {
      const endpoint = this.getEndpoint(name);
      if (endpoint) return { endpoint };
      const gguf = this.getGguf(name);
      return gguf ? { gguf } : undefined;
    },
    /** Every saved model's name, endpoints and GGUF files together, sorted. */
    savedNames(): string[] {
      return [...this.listEndpoints(), ...this.listGguf()].map((e) => e.name).sort();
    },
    addEndpoint(given: EndpointConfig, createdAt = new Date().toISOString()): void {
      const cfg = checkEndpointConfig(given);
      checkNameFree(cfg.name);
      db.prepare('INSERT INTO llm_endpoints (name, base_url, model, api_key_env, tool_calls, max_concurrency, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        cfg.name,
        cfg.baseUrl,
        cfg.model,
        cfg.apiKeyEnv,
        cfg.toolCalls,
        cfg.maxConcurrency,
        createdAt,
      );
    },
    getEndpoint(name: string): EndpointConfig | undefined {
      const r = db.prepare('SELECT * FROM llm_endpoints WHERE name = ?').get(name) as EndpointRow | undefined;
      return r && endpointOf(r);
    },
    listEndpoints(): EndpointConfig[] {
      return (db.prepare('SELECT * FROM llm_endpoints ORDER BY name').all() as EndpointRow[]).map(endpointOf);
    },
    /** Remove an endpoint or a GGUF model and its cached answers (its call records stay: they describe stored episodes). */
    removeEndpoint(name: string): boolean {
      return db.transaction(() => {
        db.prepare('DELETE FROM llm_cache WHERE endpoint = ?').run(name);
        const gguf = db.prepare('DELETE FROM llm_gguf_models WHERE name = ?').run(name).changes;
        return db.prepare('DELETE FROM llm_endpoints WHERE name = ?').run(name).changes + gguf > 0;
      })();
    },
    cachedAnswer(key: string): ChatResult | undefined {
      const r = db.prepare('SELECT result_json FROM llm_cache WHERE request_key = ?').get(key) as { result_json: string } | undefined;
      return r ? (JSON.parse(r.result_json) as ChatResult) : undefined;
    },
    /**
     * Write a ledger's records and new answers. Call it inside the transaction that stores what
     * the calls produced (a match), so both are written or neither.
     */
    writeLedger(ledger: PendingLedger, at = new Date().toISOString()): void {
      const insertCall = db.prepare(
        `INSERT INTO llm_calls (endpoint, model, episode_id, turn, role, request_key, params_json, seed, latency_ms, tokens_in, tokens_out, cached, finish_reason, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const insertAnswer = db.prepare('INSERT OR REPLACE INTO llm_cache (request_key, endpoint, result_json, created_at) VALUES (?, ?, ?, ?)');
      const endpointOfKey = new Map(ledger.records.map((r: CallRecord) => [r.requestKey, r.endpoint]));
      for (const r of ledger.records) {
        insertCall.run(
          r.endpoint,
          r.model,
          r.site?.episodeId ?? null,
          r.site?.turn ?? null,
          r.site?.role ?? null,
          r.requestKey,
          JSON.stringify(r.params),
          r.seed,
          r.latencyMs,
          r.tokensIn,
          r.tokensOut,
          r.cached ? 1 : 0,
          r.finishReason,
          at,
        );
      }
      for (const [key, answer] of ledger.answers) insertAnswer.run(key, endpointOfKey.get(key) ?? '', JSON.stringify(answer), at);
    },
    /** Totals of the calls made for the episodes whose id starts with `prefix` (`M3:` for a match, `M3:17` for one episode). */
    callTotals(episodeId: string, wholeMatch = false): CallTotals {
      const where = wholeMatch ? "episode_id LIKE ? ESCAPE '\\'" : 'episode_id = ?';
      const arg = wholeMatch ? `${episodeId.replace(/[\\%_]/g, (c) => `\\${c}`)}:%` : episodeId;
      return totalsOf(db.prepare(`SELECT ${TOTALS_COLUMNS} FROM llm_calls WHERE ${where}`).get(arg) as TotalsRow);
    },
    /** `callTotals` of every match with LLM calls at once, by match id (an episode id is `<match>:<n>`). */
    matchCallTotals(): Map<string, CallTotals> {
      const rows = db
        .prepare(
          `SELECT substr(episode_id, 1, instr(episode_id, ':') - 1) AS matchId, ${TOTALS_COLUMNS}
           FROM llm_calls WHERE instr(episode_id, ':') > 0 GROUP BY matchId`,
        )
        .all() as (TotalsRow & { matchId: string })[];
      return new Map(rows.map(({ matchId, ...t }) => [matchId, totalsOf(t)]));
    },
  };
}
export type LlmStore = ReturnType<typeof llmStore>;
