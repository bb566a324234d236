/**
 * The New study form's seeds: a count ("2") or seeds as `sparring study --seeds` reads them
 * ("1,4,7", "11-20"), read by the engine's own parser (`studies/seeds`) as it is typed, with what
 * they mean, why they are refused, and a warning for a large study.
 */
import { useEffect, useState } from 'react';
import { errorMessage, request } from '../../engine/client';
import { studySize } from './study-size.data';

export interface SeedsCheck {
  seeds: number[] | null;
  problem: string | null;
}

export function useSeedsCheck(text: string): SeedsCheck & { workers: number } {
  const [check, setCheck] = useState<SeedsCheck & { workers: number; text: string | null }>({ seeds: null, problem: null, workers: 1, text: null });
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      request('studies/seeds', { text }).then(
        (r) =>
          live &&
          setCheck((c) => (r.ok ? { seeds: r.seeds, problem: null, workers: r.workers, text } : { seeds: null, problem: r.problem, workers: c.workers, text })),
        (e: unknown) => live && setCheck((c) => ({ ...c, seeds: null, problem: errorMessage(e), text })),
      );
    }, 150);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [text]);
  // Until the engine has read this very text, nothing is known about it.
  return check.text === text ? check : { seeds: null, problem: null, workers: check.workers };
}

export function SeedsField({
  value,
  onChange,
  check,
  arms,
  preset,
}: {
  value: string;
  onChange: (v: string) => void;
  check: SeedsCheck & { workers: number };
  arms: number;
  preset: string;
}) {
  const size = check.seeds ? studySize(check.seeds, arms, preset, check.workers) : null;
  return (
    <div className="seeds-field">
      <label>
        Seeds
        <input
          value={value}
          onChange={(e) => onChange(e.target.value)}
          placeholder="2, or 1,4,7, or 11-20"
          aria-invalid={check.problem !== null}
          data-testid="study-seeds"
        />
      </label>
      <div className="small" data-testid="study-seeds-note">
        {check.problem ? (
          <span className="bad-text" role="alert">
            {check.problem}
          </span>
        ) : size ? (
          <span className="muted">
            {size.seedsText} × {arms} arm{arms === 1 ? '' : 's'} = {size.runs} run{size.runs === 1 ? '' : 's'}
          </span>
        ) : null}
      </div>
      {size?.warning && (
        <p className="hint warn-text" data-testid="study-size-warning">
          {size.warning}
        </p>
      )}
    </div>
  );
}
