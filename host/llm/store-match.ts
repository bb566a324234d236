/**
 * A match and the LLM calls it made, stored together or not at all. An episode lost to
 * infrastructure (an endpoint still failing after its retries: timeout, 429, 5xx, connection
 * refused, an answer with no choices) fails the whole match: nothing of it is written — no
 * episode, no call record, no cached answer — and the error names the endpoint and the failure.
 * (The other choice, marking such episodes and scoring without them as τ²-bench does, would make
 * W_DA depend on which episodes the network dropped.) The answers that did come back are not kept
 * either, so the lab stays exactly as it was; re-run the match once the endpoint is back.
 */
import type { MatchArgs, MatchResult } from '../../core/arena/match';
import { runMatch } from '../../core/arena/match';
import type { PendingLedger } from '../../models/llm/ledger';
import type { SqliteRunStore } from '../store/sqlite-store';
import { llmStore } from '../store/llm-store';
import type { CallTotals } from '../store/llm-store';

/** The next free arena match id `M<n>` of the lab; human matches (`H<n>`) have their own sequence. */
export function nextArenaMatchId(store: Pick<SqliteRunStore, 'listMatches'>): string {
  const arena = store
    .listMatches()
    .map((m) => /^M(\d+)$/.exec(m.id))
    .filter((m) => m !== null);
  return `M${Math.max(0, ...arena.map((m) => Number(m[1]))) + 1}`;
}

export async function runAndStoreMatch(store: SqliteRunStore, args: MatchArgs, ledger?: PendingLedger): Promise<MatchResult & { llm: CallTotals | null }> {
  let result: MatchResult;
  try {
    result = await runMatch(args);
  } catch (e) {
    ledger?.clear();
    throw e;
  }
  store.db
    .transaction(() => {
      store.saveMatch(result.match, result.episodes);
      if (ledger) llmStore(store.db).writeLedger(ledger);
    })
    .immediate(); // IMMEDIATE, as saveMatch alone: a deferred transaction would read (the lab's scenarios) before it writes, and fail with SQLITE_BUSY at once when another connection wrote in between
  const llm = ledger?.records.length ? llmStore(store.db).callTotals(result.match.id, true) : null;
  ledger?.written();
  return { ...result, llm };
}
