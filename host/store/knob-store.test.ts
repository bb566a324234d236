/**
 * EAU knobs in the lab: migration 15, the queue between writers and the runner, reverts,
 * proposals, measured effects, the experience pool, and the hot-swap at a GRPO step boundary
 * (never within a step) through the runner's own step hook (host/coevolution/actors.ts stepConfigs).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/presets';
import type { RunConfig } from '../../core/coevolution/run-config';
import type { MatchSummary } from '../../core/coevolution/run.machine';
import { runGrpo } from '../../core/rl/grpo';
import type { PolicyGradientBatch, PolicyGradientHyper, PolicyModel, StepMetrics } from '../../core/rl/ports';
import { stepConfigs } from '../coevolution/actors';
import type { LabContext } from '../coevolution/lab-context';
import { applyMigrations } from './migrations';
import { knobStore } from './knob-store';
import { openSqliteStore } from './sqlite-store';

const root = mkdtempSync(join(tmpdir(), 'sparring-knobs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshPath = () => join(root, `lab-${++n}.sqlite`);

const quick = PRESETS.quick.config;

function match(index: number, wDa: number): MatchSummary {
  return {
    matchId: `R1-M${index}`,
    index,
    da: 'DA0',
    ca: 'CA0',
    wDa,
    fraudRate: null,
    tactics: { meanEntityDensity: 0.1, meanTokens: 10, decoyRate: 0.2, hedgeRate: 0.1 } as MatchSummary['tactics'],
    stop: { stop: false, reason: null, explanation: '', t: index } as unknown as MatchSummary['stop'],
    next: null,
  };
}

/** A lab with one run in `phase` after matches of these W_DA. */
function lab(phase: string, wDas: number[], config: RunConfig = quick) {
  const path = freshPath();
  const store = openSqliteStore(path);
  const snapshot = { value: phase, context: { matches: wDas.map((w, i) => match(i + 1, w)) } };
  store.db
    .prepare(
      "INSERT INTO runs (id, created_at, updated_at, status, seed, config_json, snapshot_json, preset) VALUES ('R1', 'now', 'now', 'running', 1, ?, ?, 'quick')",
    )
    .run(JSON.stringify(config), JSON.stringify(snapshot));
  return { path, store, knobs: knobStore(store.db) };
}

function setPhase(db: Database.Database, phase: string, wDas: number[]) {
  db.prepare("UPDATE runs SET snapshot_json = ? WHERE id = 'R1'").run(
    JSON.stringify({ value: phase, context: { matches: wDas.map((w, i) => match(i + 1, w)) } }),
  );
}

describe('migration 19', () => {
  it('adds knob_writes and knob_proposals, and is idempotent', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    expect(applyMigrations(db, 18)).toBe(18);
    const knobTables = () =>
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('knob_writes', 'knob_proposals') ORDER BY name").pluck().all();
    expect(knobTables()).toEqual([]);
    expect(applyMigrations(db, 19)).toBe(19);
    expect(knobTables()).toEqual(['knob_proposals', 'knob_writes']);
    expect(() =>
      db
        .prepare(
          "INSERT INTO knob_writes (run_id, knob, value, requested_from, reason, by, status, created_at, state_json) VALUES ('R9', 'k', 1, 0, 'r', 'person', 'pending', 'now', '{}')",
        )
        .run(),
    ).toThrow(/FOREIGN KEY/);
    expect(applyMigrations(db, 19)).toBe(19);
    db.close();
  });
});

describe('knob writes in the lab', () => {
  it('queues a checked write, applies it at the next boundary with where it applied, and the effective config follows', () => {
    const { store, knobs } = lab('gym', [0.5]);
    const refused = knobs.request('R1', { knob: 'arena.maxDaTurns', value: 99, reason: 'try', by: 'person' });
    expect(refused).toMatchObject({ ok: false, rule: 'range' });
    const gated = knobs.request('R1', { knob: 'arena.maxDaTurns', value: 5, reason: 'harder', by: 'person' });
    expect(gated).toMatchObject({ ok: false, rule: 'difficulty-gate' });
    const w = knobs.request('R1', { knob: 'gym.da.lr', value: 3e-4, reason: 'faster', by: 'person:ana' });
    expect(w).toMatchObject({ ok: true, write: { status: 'pending', requestedFrom: quick.gym.da.lr, state: { phase: 'gym', matches: 1 } } });
    expect(knobs.effective('R1').gym.da.lr).toBe(quick.gym.da.lr); // not before the runner takes it
    // A phase-level knob waits for a phase boundary; a step-level one goes at a step boundary.
    const turns = knobs.request('R1', { knob: 'arena.maxDaTurns', value: 20, reason: 'deadlock', by: 'diagnostic:deadlock' });
    expect(turns.ok).toBe(true);
    expect(knobs.applyPending('R1', 'step', { phase: 'gym', matches: 1, metricStep: 7, gym: 'DA1', gymStep: 3 }).map((x) => x.knob)).toEqual(['gym.da.lr']);
    expect(knobs.effective('R1').gym.da.lr).toBe(3e-4);
    expect(knobs.effective('R1').arena.maxDaTurns).toBe(quick.arena.maxDaTurns);
    expect(knobs.applyPending('R1', 'phase', { phase: 'match', matches: 1, metricStep: 8 }).map((x) => x.knob)).toEqual(['arena.maxDaTurns']);
    expect(knobs.effective('R1').arena.maxDaTurns).toBe(20);
    expect(knobs.writes('R1').map((x) => [x.knob, x.status, x.from, x.appliedState])).toEqual([
      ['gym.da.lr', 'applied', quick.gym.da.lr, { phase: 'gym', matches: 1, metricStep: 7, gym: 'DA1', gymStep: 3 }],
      ['arena.maxDaTurns', 'applied', quick.arena.maxDaTurns, { phase: 'match', matches: 1, metricStep: 8 }],
    ]);
    store.close();
  });

  it('refuses writes while evaluating and after the run ended; survives closing the lab (kill -9) with its state', () => {
    const { path, store, knobs } = lab('match', [0.9]);
    expect(knobs.request('R1', { knob: 'stopping.tauDa', value: 0.7, reason: 'stricter', by: 'person' }).ok).toBe(true);
    setPhase(store.db, 'evaluate', [0.9]);
    expect(knobs.request('R1', { knob: 'stopping.tauDa', value: 0.8, reason: 'x', by: 'person' })).toMatchObject({ ok: false, rule: 'phase' });
    setPhase(store.db, 'done', [0.9]);
    expect(knobs.request('R1', { knob: 'stopping.tauDa', value: 0.8, reason: 'x', by: 'person' })).toMatchObject({
      ok: false,
      rule: 'phase',
      message: expect.stringContaining('finished'),
    });
    store.db.close(); // no orderly shutdown
    const again = knobStore(openSqliteStore(path).db);
    expect(again.writes('R1')).toEqual([
      expect.objectContaining({ knob: 'stopping.tauDa', value: 0.7, status: 'pending', state: { phase: 'match', matches: 1, metricStep: 0 } }),
    ]);
  });

  it('reverts an applied write with a write back to its previous value, linked both ways, once', () => {
    const { store, knobs } = lab('gym', [0.9]);
    const w = knobs.request('R1', { knob: 'arena.maxDaTurns', value: 6, reason: 'harder', by: 'person' });
    if (!w.ok) throw new Error(w.message);
    expect(knobs.revert('R1', w.write.id, 'person')).toMatchObject({ ok: false, rule: 'revert', message: expect.stringContaining('not been applied') });
    knobs.applyPending('R1', 'phase', { phase: 'match', matches: 1, metricStep: 0 });
    setPhase(store.db, 'gym', [0.9, 0.3]); // the DA now fails: the revert (an easing back) is not gated anyway
    const r = knobs.revert('R1', w.write.id, 'person');
    expect(r).toMatchObject({ ok: true, write: { knob: 'arena.maxDaTurns', value: quick.arena.maxDaTurns, reverts: w.write.id } });
    knobs.applyPending('R1', 'phase', { phase: 'match', matches: 2, metricStep: 0 });
    expect(knobs.effective('R1').arena.maxDaTurns).toBe(quick.arena.maxDaTurns);
    expect(knobs.write(w.write.id)!.revertedBy).toBe(r.ok ? r.write.id : -1);
    expect(knobs.revert('R1', w.write.id, 'person')).toMatchObject({ ok: false, message: expect.stringContaining('already reverted') });
    expect(knobs.effects('R1').find((e) => e.writeId === w.write.id)!.mark).toBe('reverted');
    store.close();
  });

  it('stores proposals with their evidence; accept (as proposed or edited) goes through the checks; dismiss records it', () => {
    const { store, knobs } = lab('gym', [0.4]);
    const proposal = {
      knob: 'arena.maxDaTurns',
      value: 20,
      reason: '41% of episodes hit the turn limit without a tool call',
      source: { kind: 'diagnostic' as const, name: 'deadlock' as const },
      evidence: { episodes: ['R1-M1:3'], series: [{ name: 'deadlock', points: [[1, 0.41]] as [number, number][] }], figures: { deadlockRate: 0.41 } },
      at: { matchIndex: 1 },
    };
    const p1 = knobs.propose('R1', proposal);
    const p2 = knobs.propose('R1', { ...proposal, value: 3 });
    const p3 = knobs.propose('R1', proposal);
    expect(knobs.accept('R1', p2.id)).toMatchObject({ ok: false, rule: 'difficulty-gate' });
    expect(knobs.proposals('R1').find((p) => p.id === p2.id)!.status).toBe('pending');
    const a = knobs.accept('R1', p1.id, { value: 16 });
    expect(a).toMatchObject({ ok: true, write: { value: 16, by: 'diagnostic:deadlock', proposalId: p1.id } });
    expect(knobs.dismiss('R1', p3.id).status).toBe('dismissed');
    expect(knobs.proposals('R1').map((p) => [p.status, p.evidence.figures.deadlockRate])).toEqual([
      ['edited', 0.41],
      ['pending', 0.41],
      ['dismissed', 0.41],
    ]);
    store.close();
  });

  it('measures W_DA after a write against the same window before, with the noise floor; kept writes are the experience pool', () => {
    const { store, knobs } = lab('gym', [0.3, 0.31, 0.29]);
    const w = knobs.request('R1', { knob: 'arena.maxDaTurns', value: 20, reason: 'deadlock', by: 'person' });
    if (!w.ok) throw new Error(w.message);
    knobs.applyPending('R1', 'phase', { phase: 'match', matches: 3, metricStep: 0 });
    expect(knobs.effects('R1')[0]!.mark).toBe('too-early');
    setPhase(store.db, 'gym', [0.3, 0.31, 0.29, 0.7, 0.72, 0.69]);
    const e = knobs.effects('R1')[0]!;
    expect(e.mark).toBe('kept');
    const wDa = e.effects.find((x) => x.measure === 'W_DA')!;
    expect(wDa.delta!).toBeCloseTo(0.4033, 3);
    expect(wDa.noiseFloor!).toBeLessThan(0.05);
    expect(knobs.keptWrites('R1').map((k) => [k.knob, k.value])).toEqual([['arena.maxDaTurns', 20]]);
    // A second run inherits it: applied at its start, recorded as inherited.
    store.db
      .prepare("INSERT INTO runs (id, created_at, updated_at, status, seed, config_json, preset) VALUES ('R2', 'now', 'now', 'running', 1, ?, 'quick')")
      .run(JSON.stringify(quick));
    knobs.recordInherited(
      'R2',
      knobs.keptWrites('R1').map((k) => ({ knob: k.knob, value: k.value, reason: `inherited from R1: ${k.reason}`, by: `inherited:R1/W${k.id}` })),
    );
    expect(knobs.effective('R2').arena.maxDaTurns).toBe(20);
    expect(knobs.history('arena.maxDaTurns').map((h) => [h.runId, h.write.from, h.write.value, h.effect?.mark])).toEqual([
      ['R1', 12, 20, 'kept'],
      ['R2', 12, 20, 'too-early'],
    ]);
    store.close();
  });
});

describe('auto-revert (eau.autoRevert)', () => {
  it('queues one revert of a write measured worse beyond the noise floor, by eau:auto-revert, and none for the others', () => {
    const { store, knobs } = lab('gym', [0.8, 0.82, 0.81]);
    const w = knobs.request('R1', { knob: 'gym.failureShare', value: 0.2, reason: 'fewer failures', by: 'person' });
    const ok = knobs.request('R1', { knob: 'stopping.tauDa', value: 0.65, reason: 'stricter', by: 'person' });
    if (!w.ok || !ok.ok) throw new Error('refused');
    knobs.applyPending('R1', 'phase', { phase: 'match', matches: 3, metricStep: 0 });
    expect(knobs.autoRevert('R1')).toEqual([]); // too early to tell
    setPhase(store.db, 'gym', [0.8, 0.82, 0.81, 0.3, 0.31, 0.29]);
    const reverts = knobs.autoRevert('R1');
    expect(reverts.map((r) => [r.knob, r.value, r.by, r.reverts])).toEqual([
      ['gym.failureShare', quick.gym.failureShare, 'eau:auto-revert', w.write.id],
      ['stopping.tauDa', quick.stopping.tauDa, 'eau:auto-revert', ok.write.id],
    ]);
    expect(reverts[0]!.reason).toMatch(/W_DA -0\.5\d+, beyond the noise floor/);
    expect(knobs.autoRevert('R1')).toEqual([]); // once
    store.close();
  });
});

/** A policy that records, per step, the group size it was sampled with and the hyper-parameters of its update. */
class RecordingPolicy implements PolicyModel<number, number> {
  readonly samples: number[] = [];
  readonly updates: PolicyGradientHyper[] = [];
  async sample(obs: readonly number[], u: () => number) {
    this.samples.push(obs.length);
    return obs.map(() => ({ action: u() < 0.5 ? 0 : 1, logProb: Math.log(0.5) }));
  }
  async greedy(obs: readonly number[]) {
    return obs.map(() => ({ action: 0, logProb: Math.log(0.5) }));
  }
  async logProbs(obs: readonly number[]) {
    return Float32Array.from(obs, () => Math.log(0.5));
  }
  async supervisedStep(): Promise<StepMetrics> {
    throw new Error('not used');
  }
  async policyGradientStep(_b: PolicyGradientBatch<number, number>, h: PolicyGradientHyper): Promise<StepMetrics> {
    this.updates.push({ ...h });
    return { 'gym/loss': 0 };
  }
  async snapshot() {
    return { weights: new Uint8Array(0) } as never;
  }
  async restore() {}
  async dispose() {}
}

describe('hot-swap into a live gym', () => {
  it('a write made during step 2 takes effect at step 3 and no step mixes two values of K, lr, β or clip ε', async () => {
    const { store, knobs } = lab('gym', [0.5]);
    // The runner's side, as the service wires it: effective config, step writes taken at each boundary.
    const ctx: Pick<LabContext, 'config' | 'atStep'> = { config: knobs.effective('R1') };
    ctx.atStep = (gym, step) => {
      if (knobs.applyPending('R1', 'step', { phase: 'gym', matches: 1, metricStep: step, gym, gymStep: step }).length) ctx.config = knobs.effective('R1');
    };
    const base = { ...quick.gym.da, steps: 6, promptsPerStep: 2, lrSchedule: 'constant' as const };
    ctx.config = { ...ctx.config, gym: { ...ctx.config.gym, da: base } };
    store.db.prepare("UPDATE runs SET config_json = ? WHERE id = 'R1'").run(JSON.stringify(ctx.config));
    const model = new RecordingPolicy();
    const used: { step: number; K: number; lr: number }[] = [];
    let scored = 0;
    await runGrpo<number, number, number>({
      model,
      reference: model,
      prompts: [0, 1, 2, 3],
      observe: (p) => p,
      reward: {
        batch: async (items) => {
          // Mid-step 2 (scoring, before the update), another process writes through the lab.
          if (++scored === 3) {
            for (const [knob, value] of [
              ['gym.da.lr', 5e-4],
              ['gym.da.K', 4],
              ['gym.da.klBeta', 0.2],
              ['gym.da.clipEps', 0.3],
            ] as const) {
              const r = knobs.request('R1', { knob, value, reason: 'hot-swap test', by: 'person' });
              if (!r.ok) throw new Error(r.message);
            }
          }
          return items.map((it) => it.action);
        },
      },
      config: { ...base, K: base.K, lrFinalRatio: 0, mu: 1, advEps: 1e-4, seed: 1 },
      configForStep: stepConfigs(ctx, 'DA', () => 'DA1', 1),
      onStep: (_m, step, c) => used.push({ step, K: c.K, lr: c.lr }),
    });
    expect(used.map((u) => u.step)).toEqual([0, 1, 2, 3, 4, 5]);
    // Steps 0–2 ran entirely with the old values (the write came during step 2), 3–5 entirely with the new.
    for (let s = 0; s < 6; s++) {
      const old = s <= 2;
      expect(model.samples[s], `samples of step ${s}`).toBe(2 * (old ? base.K : 4));
      expect(model.updates[s], `update of step ${s}`).toEqual(
        old ? { lr: base.lr, clipEps: base.clipEps, klBeta: base.klBeta, temperature: 1 } : { lr: 5e-4, clipEps: 0.3, klBeta: 0.2, temperature: 1 },
      );
      expect(used[s]).toEqual({ step: s, K: old ? base.K : 4, lr: old ? base.lr : 5e-4 });
    }
    expect(knobs.writes('R1').map((w) => w.appliedState?.gymStep)).toEqual([3, 3, 3, 3]);
    store.close();
  });
});
