/**
 * EAU's knob writes and proposals in the lab (migration "EAU knob writes and proposals").
 *
 * The lab is the queue between whoever writes (the CLI, the app, a diagnostic) and the runner,
 * which may live in another process: a write is checked (core/eau/knobs.ts checkWrite) against
 * the run's effective config and state as stored, and queued `pending`; the runner applies the
 * pending writes at its next step or phase boundary (`applyPending`, one IMMEDIATE transaction),
 * recording where. The effective config of a run is its stored config with the applied writes
 * set in order, so a run killed at any moment and resumed goes on with the same values.
 */
import { textTooLong, TEXT_BOUNDS } from './text-bounds';
import type { Database } from 'better-sqlite3';
import { parseRunConfig } from '../../core/coevolution/run-config';
import type { RunConfig } from '../../core/coevolution/run-config';
import type { MatchSummary } from '../../core/coevolution/run.machine';
import { measureEffect, overallMark } from '../../core/eau/effect';
import type { EffectMark, MeasuredEffect, MeasureSpec } from '../../core/eau/effect';
import { checkWrite, effectiveConfig, isWriter, knobSpec, knobValue } from '../../core/eau/knobs';
import type { KnobValue, WriteRule } from '../../core/eau/knobs';
import type { KnobProposal } from '../../core/eau/proposal';
import type { KnobRunState, KnobWriteView } from '../../core/eau/view';

export type { KnobRunState };

/** A write as the lab stores it: the console's view of it (core/eau/view.ts) without the measured effect, plus its run. */
export interface KnobWrite extends Omit<KnobWriteView, 'effect'> {
  runId: string;
}

export interface KnobWriteRequest {
  knob: string;
  value: KnobValue;
  reason: string;
  by: string;
}

export type WriteResult = { ok: true; write: KnobWrite } | { ok: false; rule: WriteRule | 'writer' | 'revert'; message: string };

export interface StoredProposal extends KnobProposal {
  id: number;
  runId: string;
  status: 'pending' | 'accepted' | 'edited' | 'dismissed';
  createdAt: string;
  decidedAt: string | null;
  writeId: number | null;
}

/** One write's measured effect (core/eau/effect.ts). */
export interface WriteEffect {
  writeId: number;
  effects: MeasuredEffect[];
  /** kept / reverted (proposed, or done when `reverted`) / inconclusive / too-early. */
  mark: EffectMark;
  /** True when a later write reverted it. */
  reverted: boolean;
}

/** Gym reward steps and matches per measuring window. */
export const REWARD_WINDOW = 8;
export const MATCH_WINDOW = 3;

interface WriteRow {
  id: number;
  run_id: string;
  knob: string;
  value: number;
  requested_from: number;
  from_value: number | null;
  reason: string;
  by: string;
  status: 'pending' | 'applied';
  created_at: string;
  state_json: string;
  applied_at: string | null;
  applied_state_json: string | null;
  applied_seq: number | null;
  reverts: number | null;
  proposal_id: number | null;
  reverted_by: number | null;
}
interface ProposalRow {
  id: number;
  run_id: string;
  knob: string;
  value_json: string;
  reason: string;
  source_json: string;
  evidence_json: string;
  at_json: string;
  status: StoredProposal['status'];
  created_at: string;
  decided_at: string | null;
  write_id: number | null;
}

function toWrite(r: WriteRow): KnobWrite {
  return {
    id: r.id,
    runId: r.run_id,
    knob: r.knob,
    value: r.value,
    requestedFrom: r.requested_from,
    from: r.from_value,
    reason: r.reason,
    by: r.by,
    status: r.status,
    createdAt: r.created_at,
    state: JSON.parse(r.state_json) as KnobRunState,
    appliedAt: r.applied_at,
    appliedState: r.applied_state_json ? (JSON.parse(r.applied_state_json) as KnobRunState) : null,
    reverts: r.reverts,
    revertedBy: r.reverted_by,
    proposalId: r.proposal_id,
  };
}

function toProposal(r: ProposalRow): StoredProposal {
  return {
    id: r.id,
    runId: r.run_id,
    knob: r.knob,
    value: JSON.parse(r.value_json) as KnobProposal['value'],
    reason: r.reason,
    source: JSON.parse(r.source_json) as KnobProposal['source'],
    evidence: JSON.parse(r.evidence_json) as KnobProposal['evidence'],
    at: JSON.parse(r.at_json) as KnobProposal['at'],
    status: r.status,
    createdAt: r.created_at,
    decidedAt: r.decided_at,
    writeId: r.write_id,
  };
}

const WRITE_COLUMNS = `w.*, (SELECT r.id FROM knob_writes r WHERE r.reverts = w.id ORDER BY r.id LIMIT 1) AS reverted_by`;

export function knobStore(db: Database) {
  const q = {
    run: db.prepare<[string], { id: string; config_json: string; snapshot_json: string | null; status: string; preset: string }>(
      'SELECT id, config_json, snapshot_json, status, preset FROM runs WHERE id = ?',
    ),
    metricCount: db.prepare<[string], number>("SELECT COUNT(*) FROM run_metrics WHERE run_id = ? AND key = 'gym/reward_mean'").pluck(),
    writes: db.prepare<[string], WriteRow>(`SELECT ${WRITE_COLUMNS} FROM knob_writes w WHERE w.run_id = ? ORDER BY w.id`),
    write: db.prepare<[number], WriteRow>(`SELECT ${WRITE_COLUMNS} FROM knob_writes w WHERE w.id = ?`),
    byKnob: db.prepare<[string], WriteRow>(`SELECT ${WRITE_COLUMNS} FROM knob_writes w WHERE w.knob = ? AND w.status = 'applied' ORDER BY w.run_id, w.id`),
    applied: db.prepare<[string], { knob: string; value: number }>(
      "SELECT knob, value FROM knob_writes WHERE run_id = ? AND status = 'applied' ORDER BY applied_seq",
    ),
    queued: db.prepare<[string], { knob: string; value: number }>(
      "SELECT knob, value FROM knob_writes WHERE run_id = ? ORDER BY status = 'pending', applied_seq, id",
    ),
    pending: db.prepare<[string], WriteRow>("SELECT *, NULL AS reverted_by FROM knob_writes WHERE run_id = ? AND status = 'pending' ORDER BY id"),
    hasPending: db.prepare<[string], number>("SELECT EXISTS (SELECT 1 FROM knob_writes WHERE run_id = ? AND status = 'pending')").pluck(),
    maxSeq: db.prepare<[string], number | null>('SELECT MAX(applied_seq) FROM knob_writes WHERE run_id = ?').pluck(),
    insert: db.prepare(`INSERT INTO knob_writes (run_id, knob, value, requested_from, reason, by, status, created_at, state_json, reverts, proposal_id)
                        VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)`),
    insertApplied:
      db.prepare(`INSERT INTO knob_writes (run_id, knob, value, requested_from, from_value, reason, by, status, created_at, state_json, applied_at, applied_state_json, applied_seq)
                        VALUES (?, ?, ?, ?, ?, ?, ?, 'applied', ?, ?, ?, ?, ?)`),
    apply: db.prepare(
      "UPDATE knob_writes SET status = 'applied', from_value = ?, applied_at = ?, applied_state_json = ?, applied_seq = ? WHERE id = ? AND status = 'pending'",
    ),
    insertProposal: db.prepare(`INSERT INTO knob_proposals (run_id, knob, value_json, reason, source_json, evidence_json, at_json, status, created_at)
                                VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)`),
    proposals: db.prepare<[string], ProposalRow>('SELECT * FROM knob_proposals WHERE run_id = ? ORDER BY id'),
    sameProposal: db
      .prepare<[string, string, string, string], number>('SELECT 1 FROM knob_proposals WHERE run_id = ? AND knob = ? AND source_json = ? AND at_json = ?')
      .pluck(),
    proposal: db.prepare<[number], ProposalRow>('SELECT * FROM knob_proposals WHERE id = ?'),
    decide: db.prepare('UPDATE knob_proposals SET status = ?, decided_at = ?, write_id = ? WHERE id = ?'),
    metrics: db.prepare<[string], { phase: string; step: number; value: number }>(
      "SELECT phase, step, value FROM run_metrics WHERE run_id = ? AND key = 'gym/reward_mean' ORDER BY step",
    ),
  };

  function runRow(runId: string) {
    const r = q.run.get(runId);
    if (!r) throw new Error(`no run "${runId}" in ${db.name}`);
    return r;
  }
  function snapshotOf(runId: string): { value: string; context: { matches: MatchSummary[] } } | null {
    const r = runRow(runId);
    return r.snapshot_json ? (JSON.parse(r.snapshot_json) as { value: string; context: { matches: MatchSummary[] } }) : null;
  }

  const store = {
    /** The run's base config (as started; inherited writes are applied writes on top). */
    baseConfig(runId: string): RunConfig {
      return parseRunConfig(runRow(runId).config_json, `run ${runId} config`);
    },
    /** The effective config: base + applied writes (+ pending ones, when asked: what checks stack on). */
    effective(runId: string, withPending = false): RunConfig {
      return effectiveConfig(store.baseConfig(runId), (withPending ? q.queued : q.applied).all(runId));
    },
    /** The run's state as the lab has it (phase from the snapshot of the latest phase boundary). */
    state(runId: string): KnobRunState & { recentSuccess: number | null } {
      const snap = snapshotOf(runId);
      const matches = snap?.context.matches ?? [];
      return {
        phase: snap?.value ?? 'bootstrap',
        matches: matches.length,
        metricStep: q.metricCount.get(runId) ?? 0,
        recentSuccess: matches.at(-1)?.wDa ?? null,
      };
    },
    writes(runId: string): KnobWrite[] {
      runRow(runId);
      return q.writes.all(runId).map(toWrite);
    },
    write(id: number): KnobWrite | null {
      const r = q.write.get(id);
      return r ? toWrite(r) : null;
    },
    /** A checked write, queued for the runner; a refusal names its rule. */
    request(runId: string, w: KnobWriteRequest, link: { reverts?: number; proposalId?: number } = {}): WriteResult {
      if (!isWriter(w.by)) return { ok: false, rule: 'writer', message: `by "${w.by}": expected person, person:<name>, diagnostic:<name> or llm:<model>` };
      if (!w.reason.trim()) return { ok: false, rule: 'writer', message: 'a write needs a reason' };
      const long = textTooLong('reason', w.reason, TEXT_BOUNDS.note);
      if (long) return { ok: false, rule: 'writer', message: long };
      return db
        .transaction((): WriteResult => {
          const state = store.state(runId);
          const c = checkWrite(w.knob, w.value, {
            config: store.effective(runId, true),
            phase: state.phase,
            recentSuccess: state.recentSuccess,
            revert: link.reverts !== undefined,
          });
          if (!c.ok) return c;
          const { recentSuccess: _, ...at } = state;
          const id = Number(
            q.insert.run(
              runId,
              w.knob,
              c.value,
              c.from,
              w.reason,
              w.by,
              new Date().toISOString(),
              JSON.stringify(at),
              link.reverts ?? null,
              link.proposalId ?? null,
            ).lastInsertRowid,
          );
          return { ok: true, write: store.write(id)! };
        })
        .immediate();
    },
    /** A write back to the value an applied write replaced, linked to it, through the same checks (the gate aside). */
    revert(runId: string, writeId: number, by: string, reason?: string): WriteResult {
      const w = store.write(writeId);
      if (!w || w.runId !== runId) return { ok: false, rule: 'revert', message: `no write W${writeId} in run ${runId}` };
      if (w.status !== 'applied' || w.from === null)
        return { ok: false, rule: 'revert', message: `W${writeId} has not been applied yet (pending until the run's next boundary)` };
      if (w.revertedBy !== null) return { ok: false, rule: 'revert', message: `W${writeId} was already reverted by W${w.revertedBy}` };
      return store.request(runId, { knob: w.knob, value: w.from, reason: reason ?? `revert W${writeId}`, by }, { reverts: writeId });
    },
    /**
     * The runner's side: apply the pending writes at a boundary. At a step boundary only the
     * knobs read inside a GRPO step (`boundary: 'step'`); at a phase boundary all. Returns the
     * writes applied, in order; the effective config changes only here.
     */
    applyPending(runId: string, kind: 'step' | 'phase', at: KnobRunState): KnobWrite[] {
      // A plain read first: the write lock is taken only when there is something to apply (every GRPO step asks).
      if (!q.hasPending.get(runId)) return [];
      return db
        .transaction(() => {
          const pending = q.pending.all(runId).filter((r) => kind === 'phase' || knobSpec(r.knob)?.boundary === 'step');
          if (pending.length === 0) return [];
          let config = store.effective(runId);
          let seq = q.maxSeq.get(runId) ?? 0;
          const now = new Date().toISOString();
          for (const r of pending) {
            const from = knobValue(config, r.knob);
            config = effectiveConfig(config, [{ knob: r.knob, value: r.value }]);
            q.apply.run(from, now, JSON.stringify(at), ++seq, r.id);
          }
          return pending.map((r) => store.write(r.id)!);
        })
        .immediate();
    },
    /** Writes recorded as applied at the run's start (an inherited experience pool, `--inherit`). */
    recordInherited(runId: string, writes: readonly { knob: string; value: number; reason: string; by: string }[]): KnobWrite[] {
      return db
        .transaction(() => {
          let config = store.effective(runId);
          let seq = q.maxSeq.get(runId) ?? 0;
          const now = new Date().toISOString();
          const at = JSON.stringify({ phase: 'start', matches: 0, metricStep: 0 } satisfies KnobRunState);
          const ids: number[] = [];
          for (const w of writes) {
            const from = knobValue(config, w.knob);
            config = effectiveConfig(config, [w]);
            ids.push(Number(q.insertApplied.run(runId, w.knob, w.value, from, from, w.reason, w.by, now, at, now, at, ++seq).lastInsertRowid));
          }
          return ids.map((id) => store.write(id)!);
        })
        .immediate();
    },

    // ------------------------------------------------------------------------- proposals
    /** A diagnostic's (or LLM's) proposal, stored pending with its evidence. */
    propose(runId: string, p: KnobProposal): StoredProposal {
      runRow(runId);
      const id = Number(
        q.insertProposal.run(
          runId,
          p.knob,
          JSON.stringify(p.value),
          p.reason,
          JSON.stringify(p.source),
          JSON.stringify(p.evidence),
          JSON.stringify(p.at),
          new Date().toISOString(),
        ).lastInsertRowid,
      );
      return toProposal(q.proposal.get(id)!);
    },
    /**
     * The run's side (LabContext.recordProposals): keep what the diagnostics found after a match or
     * gym, once per (match or gym, source, knob), so a resumed run re-running them adds nothing.
     * Returns how many were new.
     */
    recordProposals(runId: string, found: readonly KnobProposal[]): number {
      // IMMEDIATE: it reads before it writes, and a study's other workers write the same lab.
      return db
        .transaction(() => {
          let added = 0;
          for (const p of found) {
            if (q.sameProposal.get(runId, p.knob, JSON.stringify(p.source), JSON.stringify(p.at))) continue;
            store.propose(runId, p);
            added++;
          }
          return added;
        })
        .immediate();
    },
    proposals(runId: string): StoredProposal[] {
      runRow(runId);
      return q.proposals.all(runId).map(toProposal);
    },
    /** Accept (optionally with an edited value): the write goes through the same checks, by the proposal's source. */
    accept(runId: string, proposalId: number, opts: { value?: KnobValue; by?: string } = {}): WriteResult {
      const r = q.proposal.get(proposalId);
      if (!r || r.run_id !== runId) return { ok: false, rule: 'revert', message: `no proposal P${proposalId} in run ${runId}` };
      const p = toProposal(r);
      if (p.status !== 'pending') return { ok: false, rule: 'revert', message: `P${proposalId} is already ${p.status}` };
      const by = opts.by ?? (p.source.kind === 'diagnostic' ? `diagnostic:${p.source.name}` : `llm:${p.source.model}`);
      const edited = opts.value !== undefined && Number(opts.value) !== Number(p.value);
      const res = store.request(runId, { knob: p.knob, value: opts.value ?? p.value, reason: `P${proposalId}: ${p.reason}`, by }, { proposalId });
      if (res.ok) q.decide.run(edited ? 'edited' : 'accepted', new Date().toISOString(), res.write.id, proposalId);
      return res;
    },
    dismiss(runId: string, proposalId: number): StoredProposal {
      const r = q.proposal.get(proposalId);
      if (!r || r.run_id !== runId) throw new Error(`no proposal P${proposalId} in run ${runId}`);
      if (r.status !== 'pending') throw new Error(`P${proposalId} is already ${r.status}`);
      q.decide.run('dismissed', new Date().toISOString(), null, proposalId);
      return toProposal(q.proposal.get(proposalId)!);
    },

    // --------------------------------------------------------------------------- effects
    /** The measured effect of each applied write of a run (windows before and after where it applied). */
    effects(runId: string): WriteEffect[] {
      const writes = store.writes(runId).filter((w) => w.status === 'applied' && w.appliedState);
      const matches = snapshotOf(runId)?.context.matches ?? [];
      const rewards = q.metrics.all(runId);
      return writes.map((w) => {
        const at = w.appliedState!;
        const role = /^(gym\.ca\.|caReward\.|ca\.)/.test(w.knob) ? 'CA' : 'DA';
        const gymPoints = rewards.filter((p) => p.phase.startsWith(`gym:${role}`));
        const reward: MeasureSpec = { name: `gym reward (${role})`, window: REWARD_WINDOW, better: 1 };
        const wDa: MeasureSpec = { name: 'W_DA', window: MATCH_WINDOW, better: 1 };
        const split = <T>(xs: readonly T[], n: number) => [xs.slice(0, n), xs.slice(n)] as const;
        const [mb, ma] = split(matches, at.matches);
        const [rb, ra] = [
          gymPoints.filter((p) => p.step < at.metricStep).map((p) => p.value),
          gymPoints.filter((p) => p.step >= at.metricStep).map((p) => p.value),
        ];
        const step = knobSpec(w.knob)?.boundary === 'step';
        const rewardEffect = measureEffect(reward, rb, ra);
        const wDaEffect = measureEffect(
          wDa,
          mb.map((m) => m.wDa),
          ma.map((m) => m.wDa),
        );
        const tactic = (name: string, f: (m: MatchSummary) => number) => measureEffect({ name, window: MATCH_WINDOW, better: 0 }, mb.map(f), ma.map(f));
        const effects = [
          ...(step ? [rewardEffect, wDaEffect] : [wDaEffect, rewardEffect]),
          tactic('CA decoy rate', (m) => m.tactics.decoyRate),
          tactic('CA entity density', (m) => m.tactics.meanEntityDensity),
        ];
        const reverted = w.revertedBy !== null;
        const better = new Map(effects.map((e) => [e.measure, e.measure === 'W_DA' || e.measure.startsWith('gym reward') ? 1 : 0]));
        return { writeId: w.id, effects, reverted, mark: reverted ? 'reverted' : overallMark(effects, better) };
      });
    },
    /**
     * `eau.autoRevert`: queue a revert of every applied write measured worse beyond the noise
     * floor and not reverted yet (the runner calls it at phase boundaries). Returns the reverts queued.
     */
    autoRevert(runId: string): KnobWrite[] {
      const writes = new Map(store.writes(runId).map((w) => [w.id, w]));
      const pendingReverts = new Set([...writes.values()].filter((w) => w.reverts !== null).map((w) => w.reverts));
      const out: KnobWrite[] = [];
      for (const e of store.effects(runId)) {
        const w = writes.get(e.writeId)!;
        if (e.mark !== 'reverted' || e.reverted || w.reverts !== null || pendingReverts.has(w.id)) continue;
        const worse = e.effects.find((x) => x.mark === 'reverted')!;
        const r = store.revert(
          runId,
          w.id,
          'eau:auto-revert',
          `auto-revert W${w.id}: ${worse.measure} ${worse.delta!.toFixed(3)}, beyond the noise floor ±${worse.noiseFloor!.toFixed(3)}`,
        );
        if (r.ok) out.push(r.write);
      }
      return out;
    },
    /** What past runs learnt about a knob: every applied write of it, with from, to, context and effect. */
    history(knob: string): { runId: string; preset: string; write: KnobWrite; effect: WriteEffect | null }[] {
      const rows = q.byKnob.all(knob).map(toWrite);
      const effectsByRun = new Map<string, WriteEffect[]>();
      return rows.map((w) => {
        if (!effectsByRun.has(w.runId)) effectsByRun.set(w.runId, store.effects(w.runId));
        return { runId: w.runId, preset: runRow(w.runId).preset, write: w, effect: effectsByRun.get(w.runId)!.find((e) => e.writeId === w.id) ?? null };
      });
    },
    /** The kept writes of a run (applied, not reverts, not reverted, marked kept): what `--inherit` carries over, last value per knob. */
    keptWrites(runId: string): KnobWrite[] {
      const effects = new Map(store.effects(runId).map((e) => [e.writeId, e]));
      const kept = store
        .writes(runId)
        .filter((w) => w.status === 'applied' && w.reverts === null && w.revertedBy === null && effects.get(w.id)?.mark === 'kept');
      const last = new Map<string, KnobWrite>();
      for (const w of kept) last.set(w.knob, w);
      return [...last.values()];
    },
  };
  return store;
}

export type KnobStore = ReturnType<typeof knobStore>;
