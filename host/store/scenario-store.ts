/**
 * Custom scenarios: written by people in the lab (the app's scenario editor, `sparring
 * scenarios add`), stored in the lab's SQLite, never in the asset files. They join the robustness
 * set, so MADS evaluation (`eval/mads`, `sparring eval`), matches on the robustness set and human
 * play use them beside the shipped ones. Every write is checked by the scenario schema and the
 * taxonomy first (problems by field) and happens in one transaction, so bad input changes nothing.
 */
import type { Database as Db } from 'better-sqlite3';
import { checkScenario } from '../../core/domain/schema';
import type { FieldProblem, ScenarioDraft } from '../../core/domain/schema';
import type { Domain, Scenario } from '../../core/domain/types';
import { bankingDomain } from '../domain-files';
import { longTexts } from './text-bounds';

export type SaveScenarioResult = { ok: true; scenario: Scenario } | { ok: false; problems: FieldProblem[] };

export interface CustomScenarioStore {
  /** Oldest first. */
  list(): Scenario[];
  get(id: string): Scenario | undefined;
  /**
   * Add a scenario, or replace the custom one named `replaces` (which may change its id). Its
   * episodes' stored validator verdicts are cleared, to be recomputed against the new version.
   */
  save(value: unknown, o?: { replaces?: string; now?: string }): SaveScenarioResult;
  /** What `save` would say, storing nothing (the editor checks a form it cannot fully read itself). */
  check(value: unknown, o?: { replaces?: string }): { ok: true; scenario: ScenarioDraft } | { ok: false; problems: FieldProblem[] };
  /** False when there is no custom scenario of that id (shipped scenarios cannot be removed). */
  remove(id: string): boolean;
}

export function customScenarioStore(db: Db, builtin: () => Domain = bankingDomain): CustomScenarioStore {
  const selectAll = db.prepare('SELECT scenario_json FROM custom_scenarios ORDER BY created_at, rowid').pluck();
  const selectOne = db.prepare('SELECT scenario_json FROM custom_scenarios WHERE id = ?').pluck();
  const selectCreated = db.prepare('SELECT created_at FROM custom_scenarios WHERE id = ?').pluck();
  const insert = db.prepare('INSERT INTO custom_scenarios (id, scenario_json, created_at, updated_at) VALUES (?, ?, ?, ?)');
  const del = db.prepare('DELETE FROM custom_scenarios WHERE id = ?');
  const forget = db.prepare('UPDATE episodes SET validator_failed = NULL WHERE scenario_id = ?');
  const parse = (json: unknown): Scenario => ({ ...(JSON.parse(json as string) as ScenarioDraft), set: 'robustness' });

  const write = db.transaction((s: ScenarioDraft, replaces: string | undefined, now: string) => {
    const created = (replaces !== undefined ? (selectCreated.get(replaces) as string | undefined) : undefined) ?? now;
    if (replaces !== undefined) {
      del.run(replaces);
      forget.run(replaces);
    }
    insert.run(s.id, JSON.stringify(s), created, now);
    forget.run(s.id);
  });

  /** Every problem of a draft at once — schema, taxonomy and ids — storing nothing. */
  function check(value: unknown, o: { replaces?: string } = {}): { ok: true; scenario: ScenarioDraft } | { ok: false; problems: FieldProblem[] } {
    const domain = builtin();
    const r = checkScenario(value, domain.taxonomy);
    // Texts past their bound first (a 100,000-character id, a 20 MB description): named by field.
    const long = longTexts(value);
    const problems = [...long, ...(r.ok ? [] : r.problems.filter((p) => !long.some((l) => l.field === p.field)))];
    const id = (value as { id?: unknown } | null)?.id;
    const idProblem = (message: string) => !problems.some((p) => p.field === 'id') && problems.push({ field: 'id', message });
    if (o.replaces !== undefined && selectOne.get(o.replaces) === undefined) idProblem(`there is no custom scenario "${o.replaces}" to replace`);
    if (long.length) return { ok: false, problems };
    if (typeof id === 'string' && domain.scenarios.some((x) => x.id === id)) idProblem(`"${id}" is a shipped scenario; give the custom one its own id`);
    if (typeof id === 'string' && id !== o.replaces && selectOne.get(id) !== undefined) idProblem(`a custom scenario "${id}" exists already`);
    return r.ok && problems.length === 0 ? r : { ok: false, problems };
  }

  return {
    list: () => selectAll.all().map(parse),
    get(id) {
      const json = selectOne.get(id);
      return json === undefined ? undefined : parse(json);
    },
    check,
    save(value, o = {}) {
      const r = check(value, o);
      if (!r.ok) return r;
      write.immediate(r.scenario, o.replaces, o.now ?? new Date().toISOString());
      return { ok: true, scenario: { ...r.scenario, set: 'robustness' } };
    },
    remove: (id) => del.run(id).changes > 0,
  };
}

/** The shipped domain with the lab's custom scenarios added to its robustness set. */
export function labDomain(db: Db, builtin: Domain = bankingDomain()): Domain {
  const custom = customScenarioStore(db, () => builtin).list();
  return custom.length ? { ...builtin, scenarios: [...builtin.scenarios, ...custom] } : builtin;
}
