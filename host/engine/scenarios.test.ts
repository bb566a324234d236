/**
 * The engine's scenario requests and the validator filter on a temporary lab: a custom scenario
 * saved (problems by field otherwise), listed, played in a robustness match and by a person,
 * deleted; episodes/list filtered by validator failure agrees with episodes/validate.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VALIDATORS } from '../../core/validators/validators';
import { createEngine } from './engine';
import type { Engine } from './engine';
import { unavailableRunService } from './runs-unavailable';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'sparring-scenarios-engine-'));

describe('scenario requests of the engine', () => {
  let engine: Engine;
  beforeAll(() => {
    engine = createEngine({ dbPath: path.join(tmp, 'lab.db'), runService: unavailableRunService(), batchIntervalMs: 50 });
  });
  afterAll(() => engine.close());

  it('duplicates a shipped scenario into a custom one, listed (custom) in the robustness set', async () => {
    const base = await engine.handlers['scenarios/get']({ id: 'goal-revision-card-r' });
    expect(base).not.toHaveProperty('set');
    const r = await engine.handlers['scenarios/save']({ scenario: { ...base, id: 'my-revision', title: 'Mine' } });
    expect(r.ok).toBe(true);
    const list = await engine.handlers['scenarios/list'](undefined);
    const mine = list.find((s) => s.id === 'my-revision')!;
    expect(mine).toMatchObject({ custom: true, set: 'robustness', complexity: 'unhappy' });
    expect(list.filter((s) => s.custom).map((s) => s.id)).toEqual(['my-revision']);
    expect(await engine.handlers['scenarios/get']({ id: 'my-revision' })).toEqual({ ...base, id: 'my-revision', title: 'Mine' });
  });

  it('answers a bad scenario with its problems by field, a non-object at the boundary', async () => {
    const base = await engine.handlers['scenarios/get']({ id: 'goal-revision-card-r' });
    const r = await engine.handlers['scenarios/save']({ scenario: { ...base, id: 'Bad Id', adversities: [{ kind: 'timeout', rate: 1, turn: 2 }] } });
    expect(r).toEqual({
      ok: false,
      problems: expect.arrayContaining([
        { field: 'id', message: 'expected a kebab-case id' },
        { field: 'adversities[0].turn', message: 'give a rate or a turn, not both' },
      ]),
    });
    await expect(engine.handlers['scenarios/save']({ scenario: [] as never })).rejects.toThrow(
      'scenarios/save: Scenario: expected a scenario object (field "scenario")',
    );
    await expect(engine.handlers['scenarios/remove']({ id: 'goal-revision-card-r' })).rejects.toThrow(/shipped scenario/);
    expect((await engine.handlers['scenarios/list'](undefined)).filter((s) => s.custom)).toHaveLength(1);
  });

  it('reports every problem in one answer: schema, taxonomy and id together, and checks without storing', async () => {
    const base = await engine.handlers['scenarios/get']({ id: 'goal-revision-card-r' });
    // A missing field (schema), an intent outside the taxonomy and one routing elsewhere, an unknown goal-revision intent, a taken id.
    const { title: _t, ...untitled } = base;
    const scenario = {
      ...untitled,
      id: 'my-revision',
      intents: ['no_such_intent', ...base.intents],
      adversities: [{ kind: 'goal_revision' as const, from: 'nope', turn: 2 }],
    };
    const r = await engine.handlers['scenarios/save']({ scenario: scenario as never });
    expect(r.ok).toBe(false);
    const fields = r.ok ? [] : r.problems.map((p) => p.field);
    expect(fields).toEqual(expect.arrayContaining(['title', 'intents[0]', 'adversities[0].from', 'id']));
    const checked = await engine.handlers['scenarios/check']({ scenario: scenario as never });
    expect(checked.problems).toEqual(r.ok ? [] : r.problems);
    expect((await engine.handlers['scenarios/check']({ scenario: { ...base, id: 'fresh-one' } })).problems).toEqual([]);
    expect((await engine.handlers['scenarios/list'](undefined)).some((s) => s.id === 'fresh-one')).toBe(false);
  });

  it('plays custom scenarios in robustness matches and human play', async () => {
    const { matchId } = await engine.handlers['matches/play']({ da: 'scripted', ca: 'scripted', episodesPerScenario: 2, scenarios: 'robustness', seed: 4 });
    const { items } = await engine.handlers['episodes/list']({ matchId, scenarioId: 'my-revision' });
    expect(items).toHaveLength(2);
    expect((await engine.handlers['play/setup'](undefined)).scenarios.some((s) => s.id === 'my-revision')).toBe(true);
    const v = await engine.handlers['play/start']({ seat: 'customer', player: 'Ada', opponent: 'scripted', scenarioId: 'my-revision', seed: 1 });
    expect(v.customer?.scenarioId).toBe('my-revision');
    await engine.handlers['play/discard']({ sessionId: v.sessionId });
  });

  it('filters episodes by validator failure, agreeing with episodes/validate', async () => {
    await engine.handlers['matches/play']({ da: 'scripted', ca: 'scripted', episodesPerScenario: 1, scenarios: 'all', seed: 9 });
    const all = (await engine.handlers['episodes/list']({ limit: 500 })).items;
    const failing = new Map<string, Set<string>>();
    for (const e of all) failing.set(e.id, new Set((await engine.handlers['episodes/validate']({ id: e.id })).filter((v) => !v.ok).map((v) => v.validator)));
    const ids = async (validatorFailed: 'any' | (typeof VALIDATORS)[number]) => {
      const page = await engine.handlers['episodes/list']({ validatorFailed, limit: 500 });
      expect(page.total).toBe(page.items.length);
      return page.items.map((e) => e.id);
    };
    const any = await ids('any');
    expect(any).toEqual(all.filter((e) => failing.get(e.id)!.size > 0).map((e) => e.id));
    expect(any.length).toBeGreaterThan(0);
    for (const v of VALIDATORS) expect(await ids(v)).toEqual(all.filter((e) => failing.get(e.id)!.has(v)).map((e) => e.id));
    // Paging under the filter is the same list, page by page.
    const paged = [
      ...(await engine.handlers['episodes/list']({ validatorFailed: 'any', limit: 3 })).items,
      ...(await engine.handlers['episodes/list']({ validatorFailed: 'any', offset: 3, limit: 500 })).items,
    ];
    expect(paged.map((e) => e.id)).toEqual(any);
    await expect(engine.handlers['episodes/list']({ validatorFailed: 'grammar' as never })).rejects.toThrow(/\(field "validatorFailed"\)/);

    // Episodes stored before the column existed hold NULL: the next validator filter fills them in.
    const other = new Database(path.join(tmp, 'lab.db'));
    other.exec('UPDATE episodes SET validator_failed = NULL');
    other.close();
    expect(await ids('any')).toEqual(any);
    expect(await ids('task_success')).toEqual(all.filter((e) => failing.get(e.id)!.has('task_success')).map((e) => e.id));
    const check = new Database(path.join(tmp, 'lab.db'), { readonly: true });
    expect(check.prepare('SELECT count(*) FROM episodes WHERE validator_failed IS NULL').pluck().get()).toBe(0);
    check.close();

    // Editing a custom scenario re-judges its episodes: a hard constraint none meets fails them all.
    const mine = await engine.handlers['scenarios/get']({ id: 'my-revision' });
    await engine.handlers['scenarios/save']({ scenario: { ...mine, task: { ...mine.task!, hardConstraints: { amount: 99999.99 } } }, replaces: 'my-revision' });
    const mineIds = all.filter((e) => e.scenarioId === 'my-revision').map((e) => e.id);
    expect(mineIds).toHaveLength(2);
    expect(await ids('task_success')).toEqual(expect.arrayContaining(mineIds));
  });

  it('deletes a custom scenario; its episodes stay', async () => {
    expect(await engine.handlers['scenarios/remove']({ id: 'my-revision' })).toEqual({ ok: true });
    expect((await engine.handlers['scenarios/list'](undefined)).some((s) => s.id === 'my-revision')).toBe(false);
    expect((await engine.handlers['episodes/list']({ scenarioId: 'my-revision' })).total).toBe(2);
    await expect(engine.handlers['scenarios/remove']({ id: 'my-revision' })).rejects.toThrow(/no custom scenario/);
  });
});
