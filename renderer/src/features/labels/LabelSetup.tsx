/** Who is labelling and which queue: shared by the Annotate and Judge audit screens. */
import { useMemo, useState } from 'react';
import type { LabelKind } from '../../../../core/contract/contract';
import {
  addAnnotator,
  chooseAnnotator,
  chooseQueue,
  createQueue,
  exportLabels,
  selectAnnotator,
  selectAnnotators,
  selectBusy,
  selectAllQueues,
  selectQueue,
  useLabelsStore,
} from './labels-store';
import { checkWholeNumber } from '../../whole-number';

export function LabelSetup({ kind, defaultPerMatch, labelSetField }: { kind: LabelKind; defaultPerMatch: number; labelSetField?: boolean }) {
  const annotators = useLabelsStore(selectAnnotators);
  const annotator = useLabelsStore(selectAnnotator);
  const all = useLabelsStore(selectAllQueues);
  const queues = useMemo(() => all.filter((q) => q.kind === kind), [all, kind]);
  const queue = useLabelsStore(selectQueue(kind));
  const busy = useLabelsStore(selectBusy);
  const [name, setName] = useState('');
  const [perMatch, setPerMatch] = useState(String(defaultPerMatch));
  const [seed, setSeed] = useState('1');
  const [labelSet, setLabelSet] = useState('');
  // The engine's bounds (labels/create-queue), said where the number is typed.
  const perMatchOk = checkWholeNumber(perMatch, 'Items per match', { min: 1, max: 10_000, why: 'a queue of 0 items per match has nothing to label' });
  const seedOk = checkWholeNumber(seed, 'Seed', { min: -(2 ** 31), max: 2 ** 31 - 1 });
  const problem = !perMatchOk.ok ? perMatchOk.problem : !seedOk.ok ? seedOk.problem : null;
  const labels = labelSet
    .split(',')
    .map((l) => l.trim())
    .filter(Boolean);
  return (
    <section className="panel">
      <div className="form-row">
        <label>
          Annotator
          <select value={annotator ?? ''} onChange={(e) => chooseAnnotator(e.target.value)} data-testid="annotator-select" disabled={!annotators.length}>
            {!annotators.length && <option value="">none yet</option>}
            {annotators.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </label>
        <form
          className="form-row inline"
          onSubmit={(e) => {
            e.preventDefault();
            if (name.trim()) void addAnnotator(name).then(() => setName(''));
          }}
        >
          <label>
            New annotator
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder="name" maxLength={60} data-testid="annotator-name" />
          </label>
          <button className="btn" type="submit" disabled={!name.trim()} data-testid="annotator-add">
            Add
          </button>
        </form>
        <label>
          Queue
          <select value={queue?.id ?? ''} onChange={(e) => chooseQueue(kind, e.target.value)} data-testid="queue-select" disabled={!queues.length}>
            {!queues.length && <option value="">none yet</option>}
            {queues.map((q) => (
              <option key={q.id} value={q.id}>
                {q.id} · {q.items} items · {q.matchIds.length} match{q.matchIds.length === 1 ? '' : 'es'}
              </option>
            ))}
          </select>
        </label>
        <span className="muted small">
          {queue
            ? queue.progress.map((p) => `${p.annotator}: ${p.labelled}/${queue.items}${p.skipped ? ` (+${p.skipped} skipped)` : ''}`).join(' · ') ||
              'no labels yet'
            : ''}
        </span>
        {queue && (
          <span className="panel-tools">
            <button className="btn tiny" onClick={() => void exportLabels(queue.id, 'json')} data-testid="export-labels-json">
              Export JSON
            </button>
            <button className="btn tiny" onClick={() => void exportLabels(queue.id, 'csv')} data-testid="export-labels-csv">
              Export CSV
            </button>
          </span>
        )}
      </div>
      <details open={!queues.length}>
        <summary className="small">New queue (sampled per match, stratified by scenario, every match of the lab)</summary>
        <div className="form-row">
          <label>
            Items per match
            <input
              inputMode="numeric"
              value={perMatch}
              onChange={(e) => setPerMatch(e.target.value)}
              aria-invalid={!perMatchOk.ok}
              data-testid="queue-per-match"
            />
          </label>
          <label>
            Seed
            <input inputMode="numeric" value={seed} onChange={(e) => setSeed(e.target.value)} aria-invalid={!seedOk.ok} data-testid="queue-seed" />
          </label>
          {labelSetField && (
            <label className="grow">
              Labels, comma-separated, in hotkey order (empty: the default set)
              <input
                value={labelSet}
                onChange={(e) => setLabelSet(e.target.value)}
                placeholder="Direct intent, Vague/indirect, Contextual camouflage, …"
                data-testid="queue-labels"
              />
            </label>
          )}
          <button
            className="btn primary"
            disabled={busy || problem !== null}
            data-testid="queue-create"
            onClick={() => {
              if (perMatchOk.ok && seedOk.ok) void createQueue(kind, { perMatch: perMatchOk.value, seed: seedOk.value, ...(labels.length ? { labels } : {}) });
            }}
          >
            Create queue
          </button>
        </div>
        {problem && (
          <p className="inline-error" role="alert" data-testid="queue-problem">
            {problem}
          </p>
        )}
      </details>
    </section>
  );
}
