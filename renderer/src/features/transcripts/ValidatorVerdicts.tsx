/** MADS's four validators on the open episode: pass or fail, with the offending turn and why. */
import { useEffect, useState } from 'react';
import type { ValidatorName, ValidatorVerdict } from '../../../../core/contract/contract';
import { Badge } from '../../components/Badge';
import { ErrorState, LoadingState } from '../../components/StateViews';
import { errorMessage, request } from '../../engine/client';

const TITLES: Record<ValidatorName, string> = {
  syntax: 'Syntax',
  faithfulness: 'Faithfulness',
  role_confusion: 'Role confusion',
  task_success: 'Task success',
};

type Load = { id: string; attempt: number; verdicts: ValidatorVerdict[] | null; error: string | null };

export function ValidatorVerdicts({ episodeId }: { episodeId: string }) {
  const [load, setLoad] = useState<Load>({ id: episodeId, attempt: 0, verdicts: null, error: null });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    // No reset here: a load for another episode (or attempt) renders as loading below.
    let live = true;
    request('episodes/validate', { id: episodeId }).then(
      (verdicts) => live && setLoad({ id: episodeId, attempt, verdicts, error: null }),
      (err: unknown) => live && setLoad({ id: episodeId, attempt, verdicts: null, error: errorMessage(err) }),
    );
    return () => {
      live = false;
    };
  }, [episodeId, attempt]);

  const current = load.id === episodeId && load.attempt === attempt;
  let body;
  if (current && load.error)
    body = <ErrorState title="Could not validate this episode" error={load.error} actions={[{ label: 'Retry', onClick: () => setAttempt((n) => n + 1) }]} />;
  else if (!current || !load.verdicts) body = <LoadingState label="Validating…" />;
  else
    body = (
      <table className="table compact" data-testid="validator-table">
        <tbody>
          {load.verdicts.map((v) => (
            <tr key={v.validator} data-validator={v.validator} data-ok={v.ok}>
              <td>{TITLES[v.validator]}</td>
              <td>
                <Badge tone={v.ok ? 'ok' : 'bad'}>{v.ok ? 'pass' : 'fail'}</Badge>
              </td>
              <td className="mono">{v.turn === null ? '' : `turn ${v.turn}`}</td>
              <td className={v.ok ? 'muted small' : 'bad-text'} style={{ whiteSpace: 'normal' }}>
                {v.reason}
                {v.soft && v.soft.length > 0 && (
                  <span className="muted small"> · soft: {v.soft.map((s) => `${s.key} ${s.honoured ? '✓' : '✗'}`).join(', ')}</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    );
  const failed = load.verdicts?.filter((v) => !v.ok).length;
  return (
    <section className="panel" data-testid="validators">
      <header className="panel-head">
        <h3>Validators (MADS)</h3>
        {failed !== undefined && <span className="muted small">{failed === 0 ? 'all four pass' : `${failed} of 4 fail`}</span>}
      </header>
      {body}
    </section>
  );
}
