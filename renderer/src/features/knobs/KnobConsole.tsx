/**
 * EAU's knob console beside the live dashboard: the run's knobs with their values and ranges, a
 * checked write (refused with its rule, or queued for the run's next step or phase boundary), the
 * diagnostics' proposals with their evidence (accept, edit, dismiss), and the audit log with each
 * write's measured effect and a revert button. Polls the lab while the run lives: a write made
 * from the CLI or another window shows up here too.
 */
import { useCallback, useEffect, useState } from 'react';
import type {
  KnobConsole as Console,
  KnobHistoryRow,
  KnobProposalView,
  KnobView,
  KnobWriteResult,
  KnobWriteView,
  RunStatus,
} from '../../../../core/contract/contract';
import { errorMessage, request } from '../../engine/client';
import { Badge } from '../../components/Badge';
import { consoleLive, readOnlyReason, seriesText, showQueued } from './knob-console.data';

const POLL_MS = 1500;

const fmt = (x: number | null | undefined) => (x === null || x === undefined ? '—' : Number.isInteger(x) ? String(x) : Number(x.toPrecision(4)).toString());

function useConsole(runId: string, live: boolean) {
  const [data, setData] = useState<Console | null>(null);
  const [error, setError] = useState<string | null>(null);
  // State is set only in the request's callbacks: the effect below subscribes, it never sets state itself.
  const reload = useCallback(
    () =>
      request('knobs/console', { runId }).then(
        (d) => {
          setData(d);
          setError(null);
        },
        (e: unknown) => setError(errorMessage(e)),
      ),
    [runId],
  );
  useEffect(() => {
    void reload();
    if (!live) return;
    const t = setInterval(() => void reload(), POLL_MS);
    return () => clearInterval(t);
  }, [reload, live]);
  return { data, error, reload };
}

function ruleOf(k: KnobView, gate: number): string {
  const harder = k.raisesDifficulty === 'up' ? 'raising it' : k.raisesDifficulty === 'down' ? 'lowering it' : null;
  return `range [${fmt(k.min)}, ${fmt(k.max)}] ${k.unit}${k.type === 'integer' ? ', integer' : ''}; ${harder ? `${harder} raises difficulty: allowed once W_DA ≥ ${gate}` : 'no difficulty gate'}; applies at the next ${k.boundary === 'step' ? 'GRPO step' : 'phase'} boundary`;
}

export function KnobConsole({ runId, status }: { runId: string; status: RunStatus }) {
  const live = consoleLive(status);
  const { data, error, reload } = useConsole(runId, live);
  const [knob, setKnob] = useState('arena.maxDaTurns');
  const [value, setValue] = useState('');
  const [reason, setReason] = useState('');
  const [outcome, setOutcome] = useState<KnobWriteResult | null>(null);
  const [busy, setBusy] = useState(false);

  const act = async (f: () => Promise<KnobWriteResult | { ok: true }>) => {
    setBusy(true);
    try {
      const r = await f();
      if ('write' in r || !r.ok) setOutcome(r);
      await reload();
    } catch (e) {
      setOutcome({ ok: false, rule: 'writer', message: errorMessage(e) });
    } finally {
      setBusy(false);
    }
  };

  if (!data)
    return (
      <section className="panel" data-testid="knob-console">
        {error ? <div className="inline-error">{error}</div> : <span className="muted">Loading knobs…</span>}
      </section>
    );
  const spec = data.knobs.find((k) => k.id === knob) ?? data.knobs[0]!;
  const submit = () =>
    act(() =>
      request('knobs/set', { runId, knob: spec.id, value: value.trim() === '' ? Number.NaN : Number(value), reason: reason.trim() || 'set from the console' }),
    );

  return (
    <section className="panel" data-testid="knob-console">
      <div className="panel-head">
        <h3>Knobs (EAU) · run {runId}</h3>
        <span className="muted small">
          phase <b>{data.phase}</b> · recent success W_DA <b>{data.recentSuccess === null ? 'n/a' : data.recentSuccess.toFixed(3)}</b> · difficulty gate{' '}
          {data.difficultyGate}
        </span>
      </div>

      <form
        className="form-row"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <label>
          Knob
          <select value={spec.id} onChange={(e) => (setKnob(e.target.value), setOutcome(null))} data-testid="knob-select">
            {data.knobs.map((k) => (
              <option key={k.id} value={k.id}>
                {k.id} ({k.owner})
              </option>
            ))}
          </select>
        </label>
        <label>
          Now
          <span className="knob-now">
            <b data-testid="knob-current">{fmt(spec.value)}</b>
            {spec.queued !== spec.value && <> (→ {fmt(spec.queued)} queued)</>}
          </span>
        </label>
        <label>
          Value
          <input value={value} onChange={(e) => setValue(e.target.value)} size={8} data-testid="knob-value" />
        </label>
        <label className="grow">
          Reason
          <input value={reason} onChange={(e) => setReason(e.target.value)} size={28} data-testid="knob-reason" />
        </label>
        <button className="btn primary" type="submit" disabled={busy || !live} data-testid="knob-write">
          Write
        </button>
      </form>
      {!live && (
        <p className="hint" data-testid="knob-readonly">
          {readOnlyReason(status)}
        </p>
      )}
      <p className="hint" data-testid="knob-rule">
        {spec.meaning}. {ruleOf(spec, data.difficultyGate)}.
      </p>
      <KnobHistory knob={spec.id} runId={runId} />
      {outcome && !outcome.ok && (
        <div className="inline-error" data-testid="knob-refusal">
          Refused ({outcome.rule}): {outcome.message}
        </div>
      )}
      {outcome?.ok && showQueued(outcome, data.writes) && (
        <div className="small" data-testid="knob-accepted">
          W{outcome.write.id} queued: {outcome.write.knob} {fmt(outcome.write.requestedFrom)} → {fmt(outcome.write.value)}
        </div>
      )}

      <Proposals
        proposals={data.proposals}
        disabled={busy || !live}
        onAccept={(p, v) => void act(() => request('knobs/accept', { runId, proposalId: p.id, ...(v !== undefined ? { value: v } : {}) }))}
        onDismiss={(p) => void act(() => request('knobs/dismiss', { runId, proposalId: p.id }))}
      />

      <h4>Audit log</h4>
      {data.writes.length === 0 ? (
        <p className="muted small">No write yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="table compact" data-testid="knob-log">
            <thead>
              <tr>
                <th>write</th>
                <th>knob</th>
                <th>from → to</th>
                <th>by</th>
                <th>status</th>
                <th>applied at</th>
                <th>measured effect</th>
                <th>reason</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {[...data.writes].reverse().map((w) => (
                <WriteRow key={w.id} w={w} disabled={busy || !live} onRevert={() => void act(() => request('knobs/revert', { runId, writeId: w.id }))} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function WriteRow({ w, disabled, onRevert }: { w: KnobWriteView; disabled: boolean; onRevert: () => void }) {
  const at = w.appliedState;
  const main = w.effect?.effects.find((e) => e.noiseFloor !== null && !e.measure.startsWith('CA ')) ?? w.effect?.effects[0];
  return (
    <tr data-testid={`knob-write-${w.id}`}>
      <td className="mono">
        W{w.id}
        {w.reverts !== null && <span className="muted"> ↺W{w.reverts}</span>}
      </td>
      <td className="mono">{w.knob}</td>
      <td className="num">
        {fmt(w.from ?? w.requestedFrom)} → {fmt(w.value)}
      </td>
      <td>{w.by}</td>
      <td>
        <Badge tone={w.status === 'applied' ? 'ok' : 'warn'}>{w.status}</Badge>
      </td>
      <td className="small">{at ? `${at.phase}, after match ${at.matches}${at.gym ? `, ${at.gym} step ${at.gymStep}` : ''}` : '—'}</td>
      <td className="small" data-testid="knob-effect">
        {w.effect ? (
          <>
            <b>{w.effect.mark}</b>
            {main && main.delta !== null && (
              <>
                {' '}
                · {main.measure} {main.delta >= 0 ? '+' : ''}
                {main.delta.toFixed(3)} (noise ±{main.noiseFloor === null ? 'n/a' : main.noiseFloor.toFixed(3)}, n {main.before.n}/{main.after.n})
              </>
            )}
          </>
        ) : (
          '—'
        )}
      </td>
      <td className="small">{w.reason}</td>
      <td className="actions">
        {w.status === 'applied' && w.revertedBy === null && w.reverts === null && (
          <button className="btn tiny" disabled={disabled} onClick={onRevert} data-testid={`knob-revert-${w.id}`}>
            Revert
          </button>
        )}
        {w.revertedBy !== null && <span className="muted small">reverted by W{w.revertedBy}</span>}
      </td>
    </tr>
  );
}

function Proposals({
  proposals,
  disabled,
  onAccept,
  onDismiss,
}: {
  proposals: KnobProposalView[];
  disabled: boolean;
  onAccept: (p: KnobProposalView, value?: number) => void;
  onDismiss: (p: KnobProposalView) => void;
}) {
  const [edits, setEdits] = useState<Record<number, string>>({});
  if (proposals.length === 0) return null;
  return (
    <>
      <h4>Proposals</h4>
      <div className="table-wrap">
        <table className="table compact knob-proposals" data-testid="knob-proposals">
          <thead>
            <tr>
              <th>proposal</th>
              <th>knob → value</th>
              <th>source</th>
              <th>evidence</th>
              <th>reason</th>
              <th>status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {proposals.map((p) => (
              <tr key={p.id} data-testid={`knob-proposal-${p.id}`}>
                <td className="mono">P{p.id}</td>
                <td className="mono">
                  {p.knob} → {String(p.value)}
                </td>
                <td>{p.source.kind === 'diagnostic' ? `diagnostic ${p.source.name}` : `llm ${p.source.model}`}</td>
                <td className="small">
                  {Object.entries(p.evidence.figures)
                    .map(([k, v]) => `${k} ${fmt(v)}`)
                    .join(', ')}
                  {p.evidence.episodes.length > 0 &&
                    ` · ${p.evidence.episodes.length} episode${p.evidence.episodes.length === 1 ? '' : 's'} (${p.evidence.episodes.slice(0, 3).join(', ')}${p.evidence.episodes.length > 3 ? ', …' : ''})`}
                  {p.evidence.series.map((s) => ` · ${s.name}: ${seriesText(s.points)}`)}
                </td>
                <td className="small">{p.reason}</td>
                <td>
                  {p.status}
                  {p.writeId !== null && ` (W${p.writeId})`}
                </td>
                <td className="actions">
                  {p.status === 'pending' && (
                    <>
                      <input
                        size={6}
                        placeholder={String(p.value)}
                        value={edits[p.id] ?? ''}
                        onChange={(e) => setEdits({ ...edits, [p.id]: e.target.value })}
                        aria-label="edited value"
                      />
                      <button className="btn tiny primary" disabled={disabled} onClick={() => onAccept(p, edits[p.id] ? Number(edits[p.id]) : undefined)}>
                        {edits[p.id] ? 'Accept edited' : 'Accept'}
                      </button>
                      <button className="btn tiny" disabled={disabled} onClick={() => onDismiss(p)}>
                        Dismiss
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** The experience pool for the selected knob: what other runs of the lab did with it, and what it did. */
function KnobHistory({ knob, runId }: { knob: string; runId: string }) {
  const [rows, setRows] = useState<KnobHistoryRow[] | null>(null);
  useEffect(() => {
    let alive = true;
    request('knobs/history', { knob }).then(
      (r) => alive && setRows(r),
      () => alive && setRows([]),
    );
    return () => {
      alive = false;
    };
  }, [knob]);
  const past = (rows ?? []).filter((r) => r.runId !== runId);
  if (past.length === 0) return null;
  return (
    <p className="hint" data-testid="knob-history">
      Past runs:{' '}
      {past
        .map(
          (r) =>
            `${r.runId} W${r.write.id} ${fmt(r.write.from)} → ${fmt(r.write.value)} after match ${r.write.appliedState?.matches ?? '?'}: ${r.write.effect?.mark ?? '—'}`,
        )
        .join(' · ')}
    </p>
  );
}
