/**
 * Custom scenarios in the lab: checked by the scenario schema and the taxonomy with problems by
 * field, stored and listed with the shipped ones (robustness set), replaced, deleted; bad input
 * never changes what is stored. And the validator failures stored with every saved episode,
 * filled in on first need for episodes without them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMatch } from '../../core/arena/match';
import { DEFAULT_CONFIG, withEpisodes } from '../../core/config';
import { ScriptedCa } from '../../core/agents/scripted-ca';
import { ScriptedDa } from '../../core/agents/scripted-da';
import { judgeEpisode } from '../../core/judge/judge';
import { transcriptOfEpisode, validateTranscript } from '../../core/validators/validators';
import { bankingDomain } from '../domain-files';
import { backfillValidatorFailures, VALIDATOR_BITS } from './episode-validation';
import { customScenarioStore, labDomain } from './scenario-store';
import { openSqliteStore } from './sqlite-store';
import type { SqliteRunStore } from './sqlite-store';

const root = mkdtempSync(join(tmpdir(), 'sparring-scenarios-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A shipped unhappy scenario under a new id: a valid custom scenario. */
function draft(id = 'my-angry-customer'): Record<string, unknown> {
  const { set: _set, ...s } = bankingDomain().scenarios.find((x) => x.id === 'partial-info-dispute-r')!;
  return { ...s, id, title: 'My angry customer' };
}

describe('custom scenarios', () => {
  let store: SqliteRunStore;
  beforeEach(() => {
    store = openSqliteStore(join(root, `lab-${++n}.db`));
  });
  afterEach(() => store.close());

  it('refuses a scenario text past its bound, naming the field and the bound, storing nothing (issue 51)', () => {
    const custom = customScenarioStore(store.db);
    const longId = custom.save(draft('a'.repeat(100_000)));
    expect(longId).toEqual({ ok: false, problems: [{ field: 'id', message: 'at most 100 characters, got 100000' }] });
    const big = custom.save({ ...draft(), title: 'x'.repeat(20_000_000) });
    expect(big.ok).toBe(false);
    expect(!big.ok && big.problems).toEqual([{ field: 'title', message: 'at most 4000 characters, got 20000000' }]);
    expect(custom.list()).toEqual([]);
  });

  it('stores a valid scenario in the robustness set, listed after the shipped ones', () => {
    const custom = customScenarioStore(store.db);
    const r = custom.save(draft());
    expect(r.ok).toBe(true);
    expect(custom.list().map((s) => [s.id, s.set])).toEqual([['my-angry-customer', 'robustness']]);
    const domain = labDomain(store.db);
    expect(domain.scenarios.length).toBe(bankingDomain().scenarios.length + 1);
    expect(domain.scenarios.at(-1)).toEqual({ ...draft(), set: 'robustness' });
    expect(bankingDomain().scenarios.some((s) => s.id === 'my-angry-customer')).toBe(false);
  });

  it('reports every problem by field path and stores nothing', () => {
    const custom = customScenarioStore(store.db);
    custom.save(draft('kept'));
    const bad = {
      ...draft('new-one'),
      complexity: 'weird',
      adversities: [
        { kind: 'timeout', rate: 2 },
        { kind: 'goal_revision', from: 'no_such_intent', turn: 2 },
      ],
      persona: { name: '', style: 'x', sampleMessages: ['hi'] },
    };
    const r = custom.save(bad);
    expect(r.ok).toBe(false);
    const fields = r.ok ? [] : r.problems.map((p) => p.field);
    expect(fields).toEqual(expect.arrayContaining(['complexity', 'adversities[0].rate', 'persona.name']));
    // Taxonomy cross-checks come once the schema passes.
    const r2 = custom.save({ ...draft('new-one'), adversities: [{ kind: 'goal_revision', from: 'no_such_intent', turn: 2 }] });
    expect(r2).toEqual({ ok: false, problems: [{ field: 'adversities[0].from', message: 'intent "no_such_intent" is not in the taxonomy' }] });
    expect(custom.list().map((s) => s.id)).toEqual(['kept']);
  });

  it('refuses a shipped id or a taken one, and replacing one that does not exist', () => {
    const custom = customScenarioStore(store.db);
    custom.save(draft('mine'));
    const problem = (v: unknown, o?: { replaces?: string }) => {
      const r = custom.save(v, o);
      return r.ok ? null : r.problems[0];
    };
    expect(problem(draft('partial-info-dispute-r'))).toEqual({ field: 'id', message: expect.stringContaining('shipped scenario') });
    expect(problem(draft('mine'))).toEqual({ field: 'id', message: 'a custom scenario "mine" exists already' });
    expect(problem(draft('other'), { replaces: 'ghost' })).toEqual({ field: 'id', message: 'there is no custom scenario "ghost" to replace' });
    expect(custom.list().map((s) => s.id)).toEqual(['mine']);
  });

  it('replaces a custom scenario (renaming it keeps its creation time) and deletes it', () => {
    const custom = customScenarioStore(store.db);
    custom.save(draft('mine'), { now: '2026-01-01T00:00:00.000Z' });
    custom.save(draft('zzz'), { now: '2026-01-02T00:00:00.000Z' });
    const r = custom.save({ ...draft('renamed'), complexity: 'normal', adversities: [] }, { replaces: 'mine', now: '2026-01-03T00:00:00.000Z' });
    expect(r.ok).toBe(true);
    expect(custom.list().map((s) => s.id)).toEqual(['renamed', 'zzz']);
    expect(custom.get('renamed')?.adversities).toEqual([]);
    expect(custom.get('mine')).toBeUndefined();
    expect(custom.remove('renamed')).toBe(true);
    expect(custom.remove('renamed')).toBe(false);
    expect(custom.list().map((s) => s.id)).toEqual(['zzz']);
  });
});

describe('validator failures stored with episodes', () => {
  it('are written at save time and recomputed after a custom scenario changes', async () => {
    const store = openSqliteStore(join(root, `lab-${++n}.db`));
    const custom = customScenarioStore(store.db);
    custom.save(draft('mine'));
    const domain = labDomain(store.db);
    const { match, episodes } = await runMatch({
      matchId: 'M1',
      createdAt: '2026-01-01T00:00:00.000Z',
      domain,
      scenarios: domain.scenarios.filter((s) => s.set === 'robustness'),
      scenarioSet: 'robustness',
      da: new ScriptedDa(),
      ca: new ScriptedCa(domain),
      judge: judgeEpisode,
      config: withEpisodes(DEFAULT_CONFIG, 2),
      seed: 5,
    });
    store.saveMatch(match, episodes);
    const stored = () =>
      new Map((store.db.prepare('SELECT id, validator_failed AS v FROM episodes').all() as { id: string; v: number | null }[]).map((r) => [r.id, r.v]));
    const byId = new Map(domain.scenarios.map((s) => [s.id, s]));
    const expected = new Map(
      episodes.map((e) => {
        const s = byId.get(e.scenarioId);
        const bits = validateTranscript(transcriptOfEpisode(e, s), s).reduce((b, v) => (v.ok ? b : b | VALIDATOR_BITS[v.validator]), 0);
        return [e.id, bits];
      }),
    );
    expect(stored()).toEqual(expected);
    expect([...expected.values()].some((b) => b !== 0)).toBe(true);

    // A hard constraint no episode meets: the custom scenario's episodes now fail task success.
    const mine = custom.get('mine')!;
    const { set: _s, ...edited } = mine;
    custom.save({ ...edited, task: { ...mine.task!, hardConstraints: { amount: 123456.78 } } }, { replaces: 'mine' });
    const cleared = [...stored()].filter(([, v]) => v === null).map(([id]) => id);
    expect(cleared.sort()).toEqual(
      episodes
        .filter((e) => e.scenarioId === 'mine')
        .map((e) => e.id)
        .sort(),
    );
    expect(backfillValidatorFailures(store.db, (id) => store.getEpisode(id))).toBe(cleared.length);
    for (const id of cleared) expect(stored().get(id)! & VALIDATOR_BITS.task_success).toBe(VALIDATOR_BITS.task_success);
    expect(backfillValidatorFailures(store.db, (id) => store.getEpisode(id))).toBe(0);
    store.close();
  });
});
