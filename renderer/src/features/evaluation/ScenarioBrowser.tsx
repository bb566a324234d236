/**
 * The lab's scenarios by set: persona, task spec, complexity and adversities. Shipped ones are
 * read-only (duplicate one to change it); custom ones (robustness set) are edited and deleted here.
 */
import { useEffect, useState } from 'react';
import type { AdversitySpec, ScenarioInfo } from '../../../../core/contract/contract';
import { Badge } from '../../components/Badge';
import { ErrorState, LoadingState } from '../../components/StateViews';
import { errorMessage, request } from '../../engine/client';
import { ScenarioEditor } from './ScenarioEditor';
import { emptyForm, formOf } from './scenario-editor.data';
import type { ScenarioForm } from './scenario-editor.data';

type Load = { scenarios: ScenarioInfo[] | null; error: string | null };

/** One adversity in words: its kind and what sets it apart (slot, tool, turn, rate). */
export function adversityLabel(a: AdversitySpec): string {
  const extra: string[] = [];
  if ('slot' in a) extra.push(a.slot);
  if ('from' in a) extra.push(`from ${a.from} at utterance ${a.turn}`);
  if ('reveals' in a) extra.push(`${a.reveals.length} reveal${a.reveals.length === 1 ? '' : 's'}`);
  if ('tool' in a && a.tool) extra.push(a.tool);
  if (a.kind !== 'goal_revision' && 'turn' in a && a.turn !== undefined) extra.push(`at DA step ${a.turn}`);
  if (a.rate !== undefined) extra.push(`rate ${a.rate}`);
  return `${a.kind.replaceAll('_', ' ')}${extra.length ? ` (${extra.join(', ')})` : ''}`;
}

export function ScenarioBrowser() {
  const [load, setLoad] = useState<Load>({ scenarios: null, error: null });
  const [set, setSet] = useState('robustness');
  const [attempt, setAttempt] = useState(0);
  const [editing, setEditing] = useState<{ form: ScenarioForm; replaces?: string; key: number } | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  /** Open the editor on a copy of `id` (shipped: a new id; custom: the scenario itself). */
  async function edit(id: string, custom: boolean) {
    setActionError(null);
    try {
      const d = await request('scenarios/get', { id });
      const form = formOf(custom ? d : { ...d, id: `${d.id}-copy`, title: `${d.title} (copy)` });
      setEditing((prev) => ({ form, ...(custom ? { replaces: id } : {}), key: (prev?.key ?? 0) + 1 }));
    } catch (e) {
      setActionError(errorMessage(e));
    }
  }
  async function remove(id: string) {
    setConfirmDelete(null);
    try {
      await request('scenarios/remove', { id });
      setAttempt((n) => n + 1);
    } catch (e) {
      setActionError(errorMessage(e));
    }
  }
  useEffect(() => {
    let live = true;
    request('scenarios/list', undefined).then(
      (scenarios) => live && setLoad({ scenarios, error: null }),
      (err: unknown) => live && setLoad({ scenarios: null, error: errorMessage(err) }),
    );
    return () => {
      live = false;
    };
  }, [attempt]);

  const sets = [...new Set(load.scenarios?.map((s) => s.set) ?? [])];
  const shown = load.scenarios?.filter((s) => s.set === set) ?? [];
  let body;
  if (load.error)
    body = <ErrorState title="Could not load the scenarios" error={load.error} actions={[{ label: 'Retry', onClick: () => setAttempt((n) => n + 1) }]} />;
  else if (!load.scenarios) body = <LoadingState label="Loading scenarios…" />;
  else
    body = (
      <div className="table-wrap">
        <table className="table" data-testid="scenario-table">
          <thead>
            <tr>
              <th>scenario</th>
              <th>complexity</th>
              <th>persona</th>
              <th>task</th>
              <th>adversities</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {shown.map((s) => (
              <tr key={s.id} data-scenario={s.id} data-custom={s.custom}>
                <td>
                  <div className="mono">
                    {s.id} {s.custom && <Badge tone="warn">custom</Badge>}
                  </div>
                  <div className="muted small">
                    {s.title} · {s.expectedTool}
                  </div>
                  {s.fraudReference && <Badge tone="fraud">fraud reference</Badge>}
                </td>
                <td>
                  <Badge tone={s.complexity === 'normal' ? 'ok' : s.complexity === 'unhappy' ? 'warn' : 'bad'}>{s.complexity}</Badge>
                  {s.impossible && (
                    <div className="muted small">
                      {s.impossible.fallback_behavior.replaceAll('_', ' ')}: {s.impossible.reason}
                    </div>
                  )}
                </td>
                <td>
                  {s.persona ? (
                    <>
                      <div>{s.persona.name}</div>
                      <div className="muted small">{s.persona.style}</div>
                    </>
                  ) : (
                    <span className="muted">–</span>
                  )}
                </td>
                <td>
                  {s.task ? (
                    <>
                      <div>{s.task.objective}</div>
                      {Object.keys(s.task.hardConstraints).length > 0 && (
                        <div className="muted small mono">
                          must:{' '}
                          {Object.entries(s.task.hardConstraints)
                            .map(([k, v]) => `${k}=${String(v)}`)
                            .join(', ')}
                        </div>
                      )}
                      {Object.keys(s.task.softPreferences).length > 0 && (
                        <div className="muted small mono">
                          prefers:{' '}
                          {Object.entries(s.task.softPreferences)
                            .map(([k, v]) => `${k}=${String(v)}`)
                            .join(', ')}
                        </div>
                      )}
                    </>
                  ) : (
                    <span className="muted small">{s.description}</span>
                  )}
                </td>
                <td>
                  {s.adversities?.length ? (
                    <ul style={{ margin: 0, paddingLeft: 16 }}>
                      {s.adversities.map((a, i) => (
                        <li key={i} className="small">
                          {adversityLabel(a)}
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <span className="muted">–</span>
                  )}
                </td>
                <td className="actions">
                  {s.custom ? (
                    <>
                      <button className="btn tiny" onClick={() => void edit(s.id, true)} data-testid={`edit-${s.id}`}>
                        Edit
                      </button>
                      {confirmDelete === s.id ? (
                        <button className="btn tiny danger" onClick={() => void remove(s.id)} data-testid={`confirm-delete-${s.id}`}>
                          Really delete
                        </button>
                      ) : (
                        <button className="btn tiny" onClick={() => setConfirmDelete(s.id)} data-testid={`delete-${s.id}`}>
                          Delete
                        </button>
                      )}
                    </>
                  ) : (
                    <button className="btn tiny" onClick={() => void edit(s.id, false)} data-testid={`duplicate-${s.id}`}>
                      Duplicate
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );

  return (
    <section className="panel" data-testid="scenario-browser">
      <header className="panel-head row">
        <h3>Scenarios</h3>
        <select aria-label="Scenario set" value={set} onChange={(e) => setSet(e.target.value)} data-testid="scenario-set">
          {(sets.length ? sets : [set]).map((x) => (
            <option key={x} value={x}>
              {x}
            </option>
          ))}
        </select>
        {load.scenarios && <span className="muted small">{shown.length} scenarios</span>}
        <button className="btn tiny" onClick={() => setEditing((prev) => ({ form: emptyForm(), key: (prev?.key ?? 0) + 1 }))} data-testid="scenario-new">
          New scenario
        </button>
      </header>
      {actionError && <div className="inline-error">{actionError}</div>}
      {editing && (
        <ScenarioEditor
          key={editing.key}
          initial={editing.form}
          {...(editing.replaces !== undefined ? { replaces: editing.replaces } : {})}
          onCancel={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            setSet('robustness');
            setAttempt((n) => n + 1);
          }}
        />
      )}
      {body}
    </section>
  );
}
