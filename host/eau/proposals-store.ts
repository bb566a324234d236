/**
 * Where a run's EAU proposals (core/eau/proposal.ts) are kept: the knob console's store
 * (host/store/knob-store.ts, table `knob_proposals`), pending until a person accepts, edits or
 * dismisses them. This is the diagnostics' and the meta-agent's view of it: record, once per
 * (run, match or gym, source, knob), so a resumed run that re-runs the diagnostics of a match
 * does not duplicate it; list, as the proposals were made. (Migration 15's `eau_proposals` table
 * held them before the knob store existed; nothing writes it any more.)
 */
import type { Database } from 'better-sqlite3';
import type { KnobProposal } from '../../core/eau/proposal';
import { knobStore } from '../store/knob-store';

export interface StoredProposal {
  id: number;
  runId: string;
  createdAt: string;
  proposal: KnobProposal;
}

export function proposalStore(db: Database) {
  const knobs = knobStore(db);
  const exists = db.prepare<[string], number>('SELECT 1 FROM runs WHERE id = ?').pluck();
  return {
    /** Keep a run's proposals (never applies them). Returns how many were new. */
    recordProposals(runId: string, proposals: readonly KnobProposal[]): number {
      return knobs.recordProposals(runId, proposals);
    },
    listProposals(runId: string): StoredProposal[] {
      if (!exists.get(runId)) return [];
      return knobs.proposals(runId).map((p) => ({
        id: p.id,
        runId: p.runId,
        createdAt: p.createdAt,
        proposal: { knob: p.knob, value: p.value, reason: p.reason, source: p.source, evidence: p.evidence, at: p.at },
      }));
    },
  };
}
