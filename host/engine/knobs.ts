/**
 * The knob console's handlers (EAU, core/eau/knobs.ts), shared by the engine (the app) and the
 * CLI (`sparring knobs …`): views built from the lab, writes through the lab's checked queue
 * (host/store/knob-store.ts), so a run driven by another process picks them up at its next boundary.
 */
import type { Database } from 'better-sqlite3';
import { DEFAULT_DIFFICULTY_GATE, KNOBS, knobValue } from '../../core/eau/knobs';
import type { KnobConsole, KnobHistoryRow, KnobWriteResult, KnobWriteView } from '../../core/eau/view';
import { knobStore } from '../store/knob-store';
import type { KnobStore, KnobWrite, WriteEffect, WriteResult } from '../store/knob-store';

function writeView(w: KnobWrite, effect: WriteEffect | undefined): KnobWriteView {
  return { ...w, effect: effect ? { mark: effect.mark, effects: effect.effects } : null };
}

function result(ks: KnobStore, runId: string, r: WriteResult): KnobWriteResult {
  if (!r.ok) return r;
  return {
    ok: true,
    write: writeView(
      r.write,
      ks.effects(runId).find((e) => e.writeId === r.write.id),
    ),
  };
}

export function knobConsole(ks: KnobStore, runId: string): KnobConsole {
  const base = ks.baseConfig(runId);
  const now = ks.effective(runId);
  const queued = ks.effective(runId, true);
  const state = ks.state(runId);
  const effects = new Map(ks.effects(runId).map((e) => [e.writeId, e]));
  return {
    runId,
    phase: state.phase,
    recentSuccess: state.recentSuccess,
    difficultyGate: now.eau?.difficultyGate ?? DEFAULT_DIFFICULTY_GATE,
    knobs: KNOBS.map((k) => ({ ...k, value: knobValue(now, k.id), queued: knobValue(queued, k.id), base: knobValue(base, k.id) })),
    writes: ks.writes(runId).map((w) => writeView(w, effects.get(w.id))),
    proposals: ks.proposals(runId).map(({ runId: _, ...p }) => p),
  };
}

export function knobHistory(ks: KnobStore, knob: string): KnobHistoryRow[] {
  return ks.history(knob).map((h) => ({ runId: h.runId, preset: h.preset, write: writeView(h.write, h.effect ?? undefined) }));
}

/** The engine's handlers for the knob console's commands and queries. */
export function knobHandlers(db: Database) {
  const ks = knobStore(db);
  return {
    'knobs/console': ({ runId }: { runId: string }) => knobConsole(ks, runId),
    'knobs/history': ({ knob }: { knob: string }) => knobHistory(ks, knob),
    'knobs/set': (a: { runId: string; knob: string; value: number; reason: string; by?: string }) =>
      result(ks, a.runId, ks.request(a.runId, { knob: a.knob, value: a.value, reason: a.reason, by: a.by ?? 'person' })),
    'knobs/revert': (a: { runId: string; writeId: number; reason?: string; by?: string }) =>
      result(ks, a.runId, ks.revert(a.runId, a.writeId, a.by ?? 'person', a.reason)),
    'knobs/accept': (a: { runId: string; proposalId: number; value?: number }) =>
      result(ks, a.runId, ks.accept(a.runId, a.proposalId, a.value !== undefined ? { value: a.value } : {})),
    'knobs/dismiss': (a: { runId: string; proposalId: number }) => {
      ks.dismiss(a.runId, a.proposalId);
      return { ok: true as const };
    },
  };
}
