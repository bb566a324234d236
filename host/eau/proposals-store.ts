/**
 * Where a run's EAU proposals (core/eau/proposal.ts) are kept on this branch: the eau_proposals
 * table (migration 15), one row per proposal as JSON. The run writes them through one function,
 * `recordProposals(runId, proposals)`, which the knob console's store can replace. A proposal is
 * recorded once per (run, match or gym, diagnostic, knob): a resumed run that re-runs the
 * diagnostics of a match does not duplicate it.
 */
import type { Database } from 'better-sqlite3';
import type { KnobProposal } from '../../core/eau/proposal';

export interface StoredProposal {
  id: number;
  runId: string;
  createdAt: string;
  proposal: KnobProposal;
}

export function proposalStore(db: Database) {
  const exists = db.prepare<[string, number | null, string | null, string, string], number>(
    'SELECT 1 FROM eau_proposals WHERE run_id = ? AND match_index IS ? AND gym_id IS ? AND diagnostic = ? AND knob = ?',
  ).pluck();
  const insert = db.prepare(
    'INSERT INTO eau_proposals (run_id, created_at, match_index, gym_id, diagnostic, knob, proposal_json) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const list = db.prepare<[string], { id: number; run_id: string; created_at: string; proposal_json: string }>(
    'SELECT id, run_id, created_at, proposal_json FROM eau_proposals WHERE run_id = ? ORDER BY id',
  );
  return {
    /** Keep a run's proposals (never applies them). Returns how many were new. */
    recordProposals(runId: string, proposals: readonly KnobProposal[]): number {
      const now = new Date().toISOString();
      let added = 0;
      db.transaction(() => {
        for (const p of proposals) {
          const name = p.source.kind === 'diagnostic' ? p.source.name : `llm:${p.source.model}`;
          const matchIndex = p.at.matchIndex ?? null;
          const gymId = p.at.gymId ?? null;
          if (exists.get(runId, matchIndex, gymId, name, p.knob)) continue;
          insert.run(runId, now, matchIndex, gymId, name, p.knob, JSON.stringify(p));
          added++;
        }
      })();
      return added;
    },
    listProposals(runId: string): StoredProposal[] {
      return list.all(runId).map((r) => ({ id: r.id, runId: r.run_id, createdAt: r.created_at, proposal: JSON.parse(r.proposal_json) as KnobProposal }));
    },
  };
}
