/**
 * Calls through the lab's ledger: identical requests are answered from the response cache, and
 * every call — cached or not — leaves a record (model, parameters, seed, latency, tokens, where it
 * was made). `PendingLedger` holds both until the command that made them commits; the host
 * writes them in that command's transaction (`host/store/llm-store.ts`).
 */
import { createHash } from 'node:crypto';
import type { CallLedger, CallRecord, CallSite, ChatBackend, ChatRequest, ChatResult } from './chat-backend';

/** The cache key of a request to a backend: a hash of the endpoint, the model and the exact request. */
export function requestKey(backend: Pick<ChatBackend, 'id' | 'model'>, req: ChatRequest): string {
  return createHash('sha256')
    .update(JSON.stringify({ endpoint: backend.id, model: backend.model, request: req }))
    .digest('hex');
}

/** One call: from the cache when the ledger has the answer, else from the backend; recorded either way. */
export async function completeThrough(
  backend: ChatBackend,
  ledger: CallLedger | null,
  req: ChatRequest,
  site: CallSite | null,
  signal?: AbortSignal,
): Promise<ChatResult> {
  const key = requestKey(backend, req);
  const hit = ledger?.cached(key);
  const result = hit ? { ...hit, cached: true } : await backend.complete(req, signal);
  if (ledger) {
    const rec: CallRecord = {
      endpoint: backend.id,
      model: result.model || backend.model,
      site,
      requestKey: key,
      params: {
        temperature: req.temperature,
        max_tokens: req.max_tokens,
        tools: req.tools?.length ?? 0,
        responseSchema: req.responseSchema !== undefined,
        ...(req.top_p !== undefined ? { top_p: req.top_p } : {}),
        ...(req.n !== undefined ? { n: req.n } : {}),
      },
      seed: req.seed ?? null,
      latencyMs: hit ? 0 : result.latencyMs,
      tokensIn: result.tokensIn,
      tokensOut: result.tokensOut,
      cached: Boolean(hit),
      finishReason: result.finishReason,
    };
    ledger.record(rec, result);
  }
  return result;
}

/** A ledger that reads the lab's cache through `lookup` and keeps new records and answers in memory. */
export class PendingLedger implements CallLedger {
  readonly records: CallRecord[] = [];
  /** New answers by request key, to store in the cache on commit. */
  readonly answers = new Map<string, ChatResult>();
  /** Answers this process wrote to the lab's cache (`written`): still answered from memory, as the lab would. */
  private readonly stored = new Map<string, ChatResult>();

  /**
   * @param lookup the lab's stored answer for a key; `useCache: false` (`--no-cache`) reads nothing but still stores new answers.
   * @param share told each answer once it is written, so a ledger of one session (a play session's) hands its answers on to the lab's.
   */
  constructor(
    private readonly lookup: (key: string) => ChatResult | undefined,
    private readonly useCache = true,
    private readonly share?: (key: string, answer: ChatResult) => void,
  ) {}

  cached(key: string): ChatResult | undefined {
    if (!this.useCache) return undefined;
    return this.answers.get(key) ?? this.stored.get(key) ?? this.lookup(key);
  }

  record(rec: CallRecord, result: ChatResult): void {
    this.records.push(rec);
    if (!rec.cached) {
      const { cached: _c, ...answer } = result;
      this.answers.set(rec.requestKey, answer);
    }
  }

  /** Forget everything pending (when the command failed: its answers were not stored either). */
  clear(): void {
    this.records.length = 0;
    this.answers.clear();
  }

  /**
   * After the records and answers were written to the lab: forget the records, and keep answering
   * the written answers from memory (the lab's cache now holds them), so a long command that writes
   * as it goes (a run, phase by phase) asks no endpoint twice for the same request.
   */
  written(): void {
    for (const [key, answer] of this.answers) {
      this.stored.set(key, answer);
      this.share?.(key, answer);
    }
    this.clear();
  }
}
