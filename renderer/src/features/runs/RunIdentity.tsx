/**
 * Which run is this, shown the same way on every screen: the run, its study arm, seed and preset,
 * what its config changes from the preset, and a note a person can write (stored in the lab, as
 * `sparring runs note R "…"` writes it). `CheckpointIdentity` says the same of the run a
 * checkpoint (or a policy SPEC such as `latest`) comes from. Words from run-identity.ts.
 */
import { useState } from 'react';
import type { RunSummary } from '../../../../core/contract/contract';
import { selectMatches, useArenaStore } from '../arena/arena-store';
import { saveRunNote, selectNoteBusy, selectNoteError, useLabIndex, useLabIndexStore } from './lab-index-store';
import { checkpointOf, runChangeSentence, runFacts, runOf } from './run-identity';

export function RunIdentity({ runId, testId = 'run-identity' }: { runId: string; testId?: string }) {
  const lab = useLabIndex();
  const run = lab.runs.find((r) => r.id === runId);
  if (!run)
    return (
      <div className="run-identity small muted" data-testid={testId}>
        run {runId}
      </div>
    );
  return <RunIdentityOf run={run} testId={testId} />;
}

/** The identity of the checkpoint a policy SPEC names now; nothing for SPECs that are no checkpoint (scripted, sft, models). */
export function CheckpointIdentity({ spec, role, testId = 'checkpoint-identity' }: { spec: string; role: 'DA' | 'CA'; testId?: string }) {
  const lab = useLabIndex();
  const c = checkpointOf(spec, role, lab);
  if (!c) return null;
  const run = runOf(c, lab);
  const name = c.name === spec ? spec : `${spec} → ${c.name}`;
  if (!run)
    return (
      <div className="run-identity small" data-testid={testId}>
        <b>{name}</b> <span className="muted">{c.runId ? `from run ${c.runId}` : `not from a run (${c.source})`}</span>
      </div>
    );
  return <RunIdentityOf run={run} testId={testId} lead={`${name} is from`} />;
}

/** The identity of the checkpoint a stored match played in a role (what its SPEC resolved to then, not what `latest` names now). */
export function MatchCheckpointIdentity({ matchId, spec, role, testId }: { matchId: string; spec: string; role: 'DA' | 'CA'; testId?: string }) {
  const match = useArenaStore(selectMatches).find((m) => m.id === matchId);
  const resolved = (role === 'DA' ? match?.daCheckpoint : match?.caCheckpoint)?.name;
  return <CheckpointIdentity spec={resolved ?? spec} role={role} {...(testId ? { testId } : {})} />;
}

function RunIdentityOf({ run, testId, lead }: { run: RunSummary; testId: string; lead?: string }) {
  const change = runChangeSentence(run);
  return (
    <div className="run-identity small" data-testid={testId} data-run={run.id}>
      {lead && <span className="muted">{lead} </span>}
      <b data-testid="run-identity-facts">{runFacts(run)}</b>
      {change && (
        <span className="muted" data-testid="run-identity-change" title={run.configChange?.join('\n') ?? undefined}>
          {' '}
          · {change}
        </span>
      )}
      <RunNote run={run} />
    </div>
  );
}

/** The run's note, and a small editor for it (Enter saves, Escape cancels). */
function RunNote({ run }: { run: RunSummary }) {
  const [draft, setDraft] = useState<string | null>(null);
  const busy = useLabIndexStore(selectNoteBusy(run.id));
  const error = useLabIndexStore(selectNoteError(run.id));
  const save = async () => {
    if (draft !== null && (await saveRunNote(run.id, draft))) setDraft(null);
  };
  if (draft === null)
    return (
      <span className="run-note">
        {run.note ? (
          <span data-testid="run-note">
            {' '}
            · note: <q>{run.note}</q>
          </span>
        ) : null}{' '}
        <button
          type="button"
          className="btn tiny"
          onClick={() => setDraft(run.note ?? '')}
          data-testid="run-note-edit"
          title={`A note about run ${run.id}, kept in the lab`}
        >
          {run.note ? 'Edit note' : 'Add a note'}
        </button>
      </span>
    );
  return (
    <span className="run-note editing">
      {' '}
      <input
        type="text"
        value={draft}
        maxLength={2000}
        autoFocus
        placeholder={`a note about ${run.id} (empty clears it)`}
        aria-label={`Note about run ${run.id}`}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') void save();
          if (e.key === 'Escape') setDraft(null);
        }}
        data-testid="run-note-input"
      />{' '}
      <button type="button" className="btn tiny primary" disabled={busy} onClick={() => void save()} data-testid="run-note-save">
        {busy ? 'Saving…' : 'Save note'}
      </button>{' '}
      <button type="button" className="btn tiny" onClick={() => setDraft(null)}>
        Cancel
      </button>
      {error && <span className="inline-error">Could not save the note: {error}</span>}
    </span>
  );
}
