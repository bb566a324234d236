/**
 * The engine's MADS requests on a temporary lab: validator verdicts of a stored episode (every
 * validator, the offending turn inside the transcript), and eval/mads's report and progress.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../core/contract/run-service';
import { VALIDATORS } from '../../core/validators/validators';
import { createEngine } from './engine';
import type { Engine } from './engine';
import { unavailableRunService } from './runs-unavailable';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-mads-'));

describe('MADS requests of the engine', () => {
  let engine: Engine;
  const events: EngineEvent[] = [];
  let matchId = '';

  beforeAll(async () => {
    engine = createEngine({ dbPath: path.join(tmp, 'lab.db'), runService: unavailableRunService(), batchIntervalMs: 50 });
    engine.subscribe((e) => events.push(e));
    ({ matchId } = await engine.handlers['matches/play']({ da: 'scripted', ca: 'scripted', episodesPerScenario: 2, scenarios: 'all', seed: 3 }));
  });
  afterAll(() => engine.close());

  it('returns the four verdicts of a stored episode, a failing one naming a turn of it', async () => {
    const { items } = await engine.handlers['episodes/list']({ matchId, limit: 500 });
    let failures = 0;
    for (const s of items) {
      const e = await engine.handlers['episodes/get']({ id: s.id });
      const v = await engine.handlers['episodes/validate']({ id: s.id });
      expect(v.map((x) => x.validator)).toEqual([...VALIDATORS]);
      for (const x of v) {
        expect(x.reason.length).toBeGreaterThan(0);
        if (x.ok) expect(x.turn).toBeNull();
        else {
          failures++;
          if (x.turn !== null) expect(x.turn).toBeLessThan(e.turns.length);
        }
      }
    }
    // Scripted play over every set, unhappy and impossible scenarios included, fails some check.
    expect(failures).toBeGreaterThan(0);
  });

  it('lists every scenario with its set and resolved complexity; robustness ones carry MADS fields', async () => {
    const list = await engine.handlers['scenarios/list'](undefined);
    expect(new Set(list.map((s) => s.set))).toEqual(new Set(['arena', 'heldout', 'robustness']));
    const robust = list.filter((s) => s.set === 'robustness');
    expect(new Set(robust.map((s) => s.complexity))).toEqual(new Set(['normal', 'unhappy', 'impossible']));
    for (const s of robust.filter((x) => x.complexity === 'impossible')) expect(s.impossible?.reason).toBeTruthy();
    for (const s of robust.filter((x) => x.complexity === 'unhappy')) expect(s.adversities?.length).toBeGreaterThan(0);
    expect(robust.some((s) => s.persona && s.task)).toBe(true);
    expect(JSON.parse(JSON.stringify(list))).toEqual(list);
  });

  it('refuses an unknown episode and bad arguments, naming them', async () => {
    await expect(engine.handlers['episodes/validate']({ id: 'nope:1' })).rejects.toThrow(/no episode "nope:1"/);
    const call = engine.handlers['eval/mads'] as (a: unknown) => Promise<unknown>;
    await expect(call({ da: 'scripted', ca: 'scripted', episodesPerScenario: 0, seed: 1 })).rejects.toThrow(/eval\/mads: .*\(field "episodesPerScenario"\)/);
    await expect(call({ da: 'no-such-checkpoint', ca: 'scripted', episodesPerScenario: 1, seed: 1 })).rejects.toThrow(/no-such-checkpoint/);
  });

  it('evaluates a DA on the robustness scenarios by complexity and adversity, with progress', async () => {
    events.length = 0;
    const r = await engine.handlers['eval/mads']({ da: 'scripted', ca: 'scripted', episodesPerScenario: 1, seed: 7 });
    expect(r).toMatchObject({ da: 'scripted', ca: 'scripted', seed: 7, episodesPerScenario: 1 });
    expect(r.scenarios.length).toBeGreaterThan(0);
    expect(r.overall.episodes).toBe(r.scenarios.length);
    const byComplexity = Object.values(r.byComplexity).reduce((s, g) => s + g.episodes, 0);
    expect(byComplexity).toBe(r.overall.episodes);
    expect(Object.keys(r.byAdversity).length).toBeGreaterThan(0);
    for (const g of [r.overall, ...Object.values(r.byComplexity), ...Object.values(r.byAdversity)]) {
      expect(g.l2).toBeGreaterThanOrEqual(0);
      expect(g.l2).toBeLessThanOrEqual(1);
    }
    const progress = events.flatMap((e) => (e.name === 'eval/progress' ? [e.payload] : []));
    expect(progress.at(-1)).toEqual({ done: r.overall.episodes, total: r.overall.episodes });
    // Same seed, same report: it is a measurement, not a sample of the moment.
    const again = await engine.handlers['eval/mads']({ da: 'scripted', ca: 'scripted', episodesPerScenario: 1, seed: 7 });
    expect(again.overall).toEqual(r.overall);
  });
});
