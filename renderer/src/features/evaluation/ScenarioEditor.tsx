/**
 * Editor of a custom scenario: identity, persona, task spec, adversities (each with its rate or
 * firing turn), complexity and the impossible fallback. The engine checks it with the scenario
 * schema on save; each problem is shown beside its field and nothing is stored until none is left.
 */
import { useEffect, useState } from 'react';
import type { AdversitySpec, FieldProblem, ScenarioVocabulary } from '../../../../core/contract/contract';
import { errorMessage, request } from '../../engine/client';
import { CONVERSATIONAL, draftOf, fieldLabel, mergeProblems, newAdversity, problemsOf, toggleIntent } from './scenario-editor.data';
import type { AdversityForm, ScenarioForm } from './scenario-editor.data';

interface Props {
  initial: ScenarioForm;
  /** The custom scenario being edited (replaced on save); absent for a new one. */
  replaces?: string;
  onSaved: (id: string) => void;
  onCancel: () => void;
}

/** Messages of the problems at `field` (and inside it, unless `exact`), under its input. */
function Problems({ problems, field, exact }: { problems: FieldProblem[]; field: string; exact?: boolean }) {
  const mine = exact ? problems.filter((p) => p.field === field).map((p) => p.message) : problemsOf(problems, field);
  if (!mine.length) return null;
  return (
    <span className="bad-text small" data-testid={`problem-${field}`}>
      {mine.join('; ')}
    </span>
  );
}

export function ScenarioEditor({ initial, replaces, onSaved, onCancel }: Props) {
  const [f, setF] = useState(initial);
  const [problems, setProblems] = useState<FieldProblem[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [vocab, setVocab] = useState<ScenarioVocabulary | null>(null);
  useEffect(() => {
    let live = true;
    request('scenarios/vocabulary', undefined).then(
      (v) => live && setVocab(v),
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, []);

  const set = <K extends keyof ScenarioForm>(key: K, value: ScenarioForm[K]) => setF((x) => ({ ...x, [key]: value }));
  const setAdversity = (i: number, patch: Partial<AdversityForm>) =>
    setF((x) => ({ ...x, adversities: x.adversities.map((a, j) => (j === i ? { ...a, ...patch } : a)) }));
  const text = (key: keyof ScenarioForm, label: string, field: string, o: { area?: boolean; placeholder?: string } = {}) => (
    <label style={o.area ? { flex: '1 1 280px' } : undefined}>
      {label}
      {o.area ? (
        <textarea
          rows={3}
          value={f[key] as string}
          placeholder={o.placeholder}
          onChange={(e) => set(key, e.target.value as never)}
          data-testid={`field-${field}`}
        />
      ) : (
        <input
          type="text"
          value={f[key] as string}
          placeholder={o.placeholder}
          onChange={(e) => set(key, e.target.value as never)}
          data-testid={`field-${field}`}
        />
      )}
      <Problems problems={problems} field={field} />
    </label>
  );
  const options = (xs: readonly string[]) =>
    xs.map((x) => (
      <option key={x} value={x}>
        {x.replaceAll('_', ' ')}
      </option>
    ));

  async function save() {
    const { draft, problems: local } = draftOf(f);
    setError(null);
    setSaving(true);
    try {
      // What the form cannot read itself and what the engine finds, in one round.
      if (local.length) {
        const checked = await request('scenarios/check', { scenario: draft as never, ...(replaces !== undefined ? { replaces } : {}) });
        return setProblems(mergeProblems(local, checked.problems));
      }
      const r = await request('scenarios/save', { scenario: draft as never, ...(replaces !== undefined ? { replaces } : {}) });
      if (r.ok) onSaved(r.scenario.id);
      else setProblems(r.problems);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setSaving(false);
    }
  }

  const routed = vocab?.intents.filter((i) => i.tool === f.expectedTool).map((i) => i.intent) ?? [];
  const picked = f.intents
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  return (
    <div className="scenario-editor" data-testid="scenario-editor">
      <h4>
        {replaces ? `Edit ${replaces}` : 'New custom scenario'} <span className="muted small">(joins the robustness set)</span>
      </h4>
      <div className="form-row">
        {text('id', 'Id (kebab-case)', 'id')}
        {text('title', 'Title', 'title')}
        <label>
          Expected tool
          <select value={f.expectedTool} onChange={(e) => set('expectedTool', e.target.value)} data-testid="field-expectedTool">
            {options(vocab?.domainTools ?? [f.expectedTool])}
          </select>
        </label>
        <label>
          Situation
          <select value={f.situation} onChange={(e) => set('situation', e.target.value)} data-testid="field-situation">
            {options(vocab?.situations ?? [f.situation])}
          </select>
        </label>
        <label>
          Complexity
          <select value={f.complexity} onChange={(e) => set('complexity', e.target.value)} data-testid="field-complexity">
            <option value="">implied</option>
            {options(vocab?.complexities ?? [])}
          </select>
          <Problems problems={problems} field="complexity" />
        </label>
      </div>
      <div className="form-row">
        <fieldset className="intent-picker" data-testid="field-intents">
          <legend>Intents (from the taxonomy; those routing to {f.expectedTool.replaceAll('_', ' ')})</legend>
          {[...routed, ...picked.filter((i) => !routed.includes(i))].map((intent) => (
            <label key={intent} className={routed.includes(intent) ? '' : 'bad-text'}>
              <input
                type="checkbox"
                checked={picked.includes(intent)}
                onChange={(e) => set('intents', toggleIntent(f.intents, intent, e.target.checked))}
                data-intent={intent}
              />{' '}
              {intent.replaceAll('_', ' ')}
            </label>
          ))}
          {routed.length === 0 && !vocab && <span className="muted small">loading the taxonomy…</span>}
          <Problems problems={problems} field="intents" />
        </fieldset>
        {text('description', 'Description', 'description')}
      </div>

      <h5>Persona</h5>
      <div className="form-row">
        {text('personaName', 'Name', 'persona.name')}
        {text('personaStyle', 'Style', 'persona.style')}
        {text('personaSamples', 'Sample messages (one a line)', 'persona.sampleMessages', { area: true })}
      </div>

      <h5>Task</h5>
      <div className="form-row">
        {text('objective', 'Objective', 'task.objective')}
        {text('hardConstraints', 'Hard constraints (key = value)', 'task.hardConstraints', { area: true, placeholder: 'amount = 42.5' })}
        {text('softPreferences', 'Soft preferences (key = value)', 'task.softPreferences', { area: true })}
        {text('successCriteria', 'Success criteria (one a line)', 'task.successCriteria', { area: true })}
      </div>
      <Problems problems={problems} field="task" exact />

      <h5>Adversities</h5>
      {f.adversities.map((a, i) => {
        const at = `adversities[${i}]`;
        const field = (key: keyof AdversityForm, label: string, path: string) => (
          <label>
            {label}
            <input type="text" value={a[key]} onChange={(e) => setAdversity(i, { [key]: e.target.value })} data-testid={`field-${at}.${path}`} />
            <Problems problems={problems} field={`${at}.${path}`} />
          </label>
        );
        const execution = !CONVERSATIONAL.includes(a.kind);
        return (
          <div className="form-row" key={i} data-testid={`adversity-${i}`}>
            <label>
              Kind
              <select value={a.kind} onChange={(e) => setAdversity(i, newAdversity(e.target.value as AdversitySpec['kind']))} data-testid={`field-${at}.kind`}>
                {options([...(vocab?.conversationalAdversities ?? []), ...(vocab?.executionAdversities ?? [])])}
              </select>
            </label>
            {a.kind === 'partial_information' && (
              <label>
                Withheld detail
                <select value={a.slot} onChange={(e) => setAdversity(i, { slot: e.target.value })} data-testid={`field-${at}.slot`}>
                  {options(vocab?.detailSlots ?? [a.slot])}
                </select>
              </label>
            )}
            {a.kind === 'incremental_constraints' && (
              <label style={{ flex: '1 1 280px' }}>
                Revealed constraints (one a line)
                <textarea rows={2} value={a.reveals} onChange={(e) => setAdversity(i, { reveals: e.target.value })} data-testid={`field-${at}.reveals`} />
                <Problems problems={problems} field={`${at}.reveals`} />
              </label>
            )}
            {a.kind === 'goal_revision' && (
              <label>
                Opening intent
                <select value={a.from} onChange={(e) => setAdversity(i, { from: e.target.value })} data-testid={`field-${at}.from`}>
                  <option value="">choose…</option>
                  {options(vocab?.intents.map((x) => x.intent) ?? (a.from ? [a.from] : []))}
                </select>
                <Problems problems={problems} field={`${at}.from`} />
              </label>
            )}
            {a.kind === 'goal_revision' && field('turn', 'Revises at customer turn', 'turn')}
            {execution && (
              <label>
                Tool
                <select value={a.tool} onChange={(e) => setAdversity(i, { tool: e.target.value })} data-testid={`field-${at}.tool`}>
                  <option value="">expected tool</option>
                  {options(vocab?.tools ?? [])}
                </select>
              </label>
            )}
            {execution && field('turn', 'Fires at DA step (or a rate)', 'turn')}
            {execution && field('message', 'Message', 'message')}
            {field('rate', 'Rate (0–1, seeded)', 'rate')}
            <Problems problems={problems} field={at} exact />
            <button
              className="btn tiny"
              onClick={() =>
                set(
                  'adversities',
                  f.adversities.filter((_, j) => j !== i),
                )
              }
              data-testid={`remove-adversity-${i}`}
            >
              Remove
            </button>
          </div>
        );
      })}
      <button className="btn tiny" onClick={() => set('adversities', [...f.adversities, newAdversity('partial_information')])} data-testid="add-adversity">
        Add adversity
      </button>

      <h5>Impossible request</h5>
      <div className="form-row">
        <label style={{ flexDirection: 'row', alignItems: 'center' }}>
          <input type="checkbox" checked={f.impossible} onChange={(e) => set('impossible', e.target.checked)} data-testid="field-impossible" /> the goal cannot
          be met
        </label>
        {f.impossible && (
          <>
            <label>
              Fallback behaviour
              <select value={f.fallbackBehavior} onChange={(e) => set('fallbackBehavior', e.target.value)} data-testid="field-impossible.fallback_behavior">
                {options(vocab?.fallbackBehaviors ?? [f.fallbackBehavior])}
              </select>
            </label>
            {text('impossibleReason', 'Why', 'impossible.reason')}
          </>
        )}
      </div>

      {problems.length > 0 && (
        <ul className="inline-error" data-testid="scenario-problems">
          {problems.map((p, i) => (
            <li key={i} data-field={p.field}>
              {fieldLabel(p.field)}: {p.message}
            </li>
          ))}
        </ul>
      )}
      {error && <div className="inline-error">{error}</div>}
      <div className="form-row">
        <button className="btn primary" onClick={() => void save()} disabled={saving} data-testid="scenario-save">
          {saving ? 'Saving…' : 'Save scenario'}
        </button>
        <button className="btn" onClick={onCancel} data-testid="scenario-cancel">
          Cancel
        </button>
      </div>
    </div>
  );
}
