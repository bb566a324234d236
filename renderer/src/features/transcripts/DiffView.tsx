/**
 * Two checkpoints of one role replay the same scenario and seed against the same opponent; their
 * transcripts side by side, the first divergence highlighted with what differs there (action,
 * tool, arguments, outcome, words, reward terms), and the outcomes and judge verdicts compared.
 */
import { useEffect, useMemo } from 'react';
import type { EpisodeDiff } from '../../../../core/contract/contract';
import { Badge } from '../../components/Badge';
import { EmptyState, ErrorState, LoadingState } from '../../components/StateViews';
import { loadEngineInfo, selectInfo, useEngineStore } from '../../engine/engine-store';
import { selectMatches, useArenaStore } from '../arena/arena-store';
import { diffRows, divergenceText, outcomeRows } from './diff.data';
import type { DiffRow } from './diff.data';
import { editDiffForm, replayDiff, selectDiff, selectDiffError, selectDiffForm, selectDiffStatus, useDiffStore } from './diff-store';
import { signed, termLabel } from './transcript.data';
import { policiesByRun } from '../runs/by-run';
import { useLabIndex } from '../runs/lab-index-store';
import { policyOptionLabel } from '../runs/run-identity';
import { CheckpointIdentity } from '../runs/RunIdentity';
import type { TurnView } from './transcript.data';

export function DiffView({ onClose }: { onClose: () => void }) {
  const status = useDiffStore(selectDiffStatus);
  const error = useDiffStore(selectDiffError);
  const diff = useDiffStore(selectDiff);
  // The policy lists come from engine/info: refresh them, a run may have added checkpoints.
  useEffect(() => {
    void loadEngineInfo();
  }, []);
  return (
    <div className="diff" data-testid="diff-view">
      <DiffForm onClose={onClose} />
      <DiffIdentities />
      {status === 'idle' && (
        <div className="panel">
          <EmptyState title="Compare two checkpoints on one episode" testId="diff-empty">
            Pick two policies of a role, a scenario and a seed, then <b>Replay both</b>. The world and the opponent are seeded, so whatever differs first was
            caused by the policies. From an open episode, <b>Compare checkpoints</b> fills in its scenario and seed.
          </EmptyState>
        </div>
      )}
      {status === 'loading' && (
        <div className="panel">
          <LoadingState label="Replaying the episode with both policies…" />
        </div>
      )}
      {status === 'error' && (
        <div className="panel">
          <ErrorState title="Could not replay" error={error ?? ''} actions={[{ label: 'Retry', onClick: () => void replayDiff() }]} />
        </div>
      )}
      {status === 'ready' && diff && <DiffResult d={diff} />}
    </div>
  );
}

/** Which run each compared checkpoint comes from (names are lab-wide). */
function DiffIdentities() {
  const form = useDiffStore(selectDiffForm);
  const other = form.role === 'DA' ? 'CA' : 'DA';
  return (
    <div className="diff-identities" data-testid="diff-identities">
      <CheckpointIdentity spec={form.a} role={form.role} testId="diff-a-identity" />
      {form.b !== form.a && <CheckpointIdentity spec={form.b} role={form.role} testId="diff-b-identity" />}
      <CheckpointIdentity spec={form.opponent} role={other} testId="diff-opponent-identity" />
    </div>
  );
}

function DiffForm({ onClose }: { onClose: () => void }) {
  const form = useDiffStore(selectDiffForm);
  const loading = useDiffStore(selectDiffStatus) === 'loading';
  const info = useEngineStore(selectInfo);
  const matches = useArenaStore(selectMatches);
  const own = (form.role === 'DA' ? info?.policies.da : info?.policies.ca) ?? ['scripted'];
  const other = (form.role === 'DA' ? info?.policies.ca : info?.policies.da) ?? ['scripted'];
  const scenarios = useMemo(() => {
    const ids = new Set(matches.flatMap((m) => m.perScenario.map((s) => s.scenarioId)));
    if (form.scenarioId) ids.add(form.scenarioId);
    return [...ids].sort();
  }, [matches, form.scenarioId]);
  const lab = useLabIndex();
  // Checkpoints under their run; imported ones (no run) under a group of their own.
  const options = (list: string[], value: string, role: 'DA' | 'CA') => {
    const { plain, groups } = policiesByRun(list.includes(value) ? list : [value, ...list], role, lab);
    const option = (p: string) => (
      <option key={p} value={p}>
        {policyOptionLabel(p, role, lab)}
      </option>
    );
    return [
      ...plain.map(option),
      ...groups.map((g) => (
        <optgroup key={`run:${g.runId ?? ''}`} label={g.label}>
          {g.items.map(option)}
        </optgroup>
      )),
    ];
  };
  const otherRole = form.role === 'DA' ? 'CA' : 'DA';
  const ready = form.scenarioId !== '' && Number.isInteger(form.seed);
  return (
    <div className="panel filter-bar diff-form" data-testid="diff-form">
      <label>
        Role
        <select
          value={form.role}
          onChange={(e) => editDiffForm({ role: e.target.value as 'DA' | 'CA', a: 'scripted', b: 'scripted', opponent: 'scripted' })}
          data-testid="diff-role"
        >
          <option value="DA">DA checkpoints</option>
          <option value="CA">CA checkpoints</option>
        </select>
      </label>
      <label>
        A
        <select value={form.a} onChange={(e) => editDiffForm({ a: e.target.value })} className="identity-select" data-testid="diff-a">
          {options(own, form.a, form.role)}
        </select>
      </label>
      <label>
        B
        <select value={form.b} onChange={(e) => editDiffForm({ b: e.target.value })} className="identity-select" data-testid="diff-b">
          {options(own, form.b, form.role)}
        </select>
      </label>
      <label>
        against {form.role === 'DA' ? 'CA' : 'DA'}
        <select value={form.opponent} onChange={(e) => editDiffForm({ opponent: e.target.value })} className="identity-select" data-testid="diff-opponent">
          {options(other, form.opponent, otherRole)}
        </select>
      </label>
      <label>
        Scenario
        <select value={form.scenarioId} onChange={(e) => editDiffForm({ scenarioId: e.target.value })} data-testid="diff-scenario">
          {form.scenarioId === '' && <option value="">choose…</option>}
          {scenarios.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <label>
        Seed
        <input
          type="number"
          className="seed-input"
          value={form.seed}
          onChange={(e) => editDiffForm({ seed: Math.trunc(Number(e.target.value)) })}
          data-testid="diff-seed"
        />
      </label>
      <button className="btn primary" disabled={!ready || loading} onClick={() => void replayDiff()} data-testid="diff-replay">
        Replay both
      </button>
      <button className="btn tiny" onClick={onClose}>
        Close
      </button>
    </div>
  );
}

function DiffResult({ d }: { d: EpisodeDiff }) {
  const rows = useMemo(() => diffRows(d), [d]);
  const outcomes = useMemo(() => outcomeRows(d), [d]);
  return (
    <>
      <section className="panel" data-testid="diff-summary">
        <header className="panel-head">
          <h3>
            {d.role} <span className="mono">{d.a.spec}</span> vs <span className="mono">{d.b.spec}</span> · {d.scenarioId} · seed {d.seed} · against{' '}
            {d.opponent}
          </h3>
        </header>
        <p className={d.divergence ? 'diverge-text' : 'muted'} data-testid="diff-divergence">
          {divergenceText(d)}
        </p>
        <table className="table compact" data-testid="diff-outcomes">
          <thead>
            <tr>
              <th />
              <th>A · {d.a.spec}</th>
              <th>B · {d.b.spec}</th>
            </tr>
          </thead>
          <tbody>
            {outcomes.map((o) => (
              <tr key={o.label} className={o.differs ? 'differs' : undefined} data-differs={o.differs || undefined}>
                <td>{o.label}</td>
                <td className="mono">{o.a}</td>
                <td className="mono">{o.b}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="diff-rationales">
          <p className="rationale">
            <b>A:</b> {d.a.episode.judge.rationale}
          </p>
          <p className="rationale">
            <b>B:</b> {d.b.episode.judge.rationale}
          </p>
        </div>
      </section>
      <section className="panel">
        <header className="panel-head">
          <h3>Turns</h3>
          <span className="muted small">A left, B right</span>
        </header>
        <ol className="diff-turns" data-testid="diff-turns">
          {rows.map((r) => (
            <DiffTurnRow key={r.index} r={r} />
          ))}
        </ol>
      </section>
    </>
  );
}

function DiffTurnRow({ r }: { r: DiffRow }) {
  return (
    <li className={`diff-row ${r.state}`} data-turn={r.index} data-state={r.state} data-testid={r.state === 'first' ? 'diff-first' : undefined}>
      <div className="diff-index mono">
        #{r.index}
        {r.state === 'first' && (
          <div className="diff-fields">
            {r.fields.map((f) => (
              <Badge key={f} tone="bad">
                {f}
              </Badge>
            ))}
          </div>
        )}
      </div>
      <DiffCell t={r.a} rewardsDiffer={r.rewardsDiffer} />
      <DiffCell t={r.b} rewardsDiffer={r.rewardsDiffer} />
    </li>
  );
}

function DiffCell({ t, rewardsDiffer }: { t: TurnView | null; rewardsDiffer: boolean }) {
  if (!t) return <div className="diff-cell missing muted">no such turn</div>;
  return (
    <div className={`diff-cell ${t.role}`}>
      <div className="diff-cell-head">
        <span className="turn-role">{t.role === 'customer' ? 'Customer' : 'Agent'}</span>
        {t.actionType && <Badge tone={t.actionType === 'tool_call' ? 'da' : 'neutral'}>{t.actionType}</Badge>}
        {t.tool && <span className="tool-name">{t.tool}</span>}
      </div>
      {t.thinking && <div className="thinking">{t.thinking}</div>}
      {t.said !== null && <div className="said">{t.said}</div>}
      {t.toolArgs && t.toolArgs !== '{}' && <pre className="code">{t.toolArgs}</pre>}
      {t.toolResult && <div className={t.toolResult.ok ? 'ok-text small' : 'bad-text small'}>{t.toolResult.ok ? 'result ok' : t.toolResult.error}</div>}
      {t.parseError && <div className="parse-error">Unparseable: {t.parseError}</div>}
      <div className={`turn-rewards${rewardsDiffer ? ' differs' : ''}`}>
        {t.rewards.map((x) => (
          <span key={x.term} className={`chip ${x.value > 0 ? 'pos' : x.value < 0 ? 'neg' : ''}`}>
            {termLabel(x.term)} {signed(x.value)}
          </span>
        ))}
      </div>
    </div>
  );
}
