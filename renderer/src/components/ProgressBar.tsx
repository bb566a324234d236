import { useEffect, useState } from 'react';

/**
 * The wall clock for an ETA, ticking every `ms` while `active`: read from state, so a render stays
 * pure (no Date.now() during render) and the ETA moves between progress events.
 */
export function useNow(active: boolean, ms = 500): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [active, ms]);
  return now;
}

/** A labelled progress bar with the ETA. */
export function ProgressBar({ label, done, total, etaSeconds }: { label: string; done: number; total: number; etaSeconds: number | null }) {
  const frac = total > 0 ? Math.min(1, done / total) : 0;
  return (
    <div className="progress" data-testid="progress">
      <div className="progress-row">
        <span>{label}</span>
        <span className="muted">
          {done}/{total} · {Math.round(frac * 100)}%{etaSeconds !== null && frac < 1 ? ` · ETA ${formatDuration(etaSeconds)}` : ''}
        </span>
      </div>
      <div className="progress-track" role="progressbar" aria-valuemin={0} aria-valuemax={total} aria-valuenow={done}>
        <div className="progress-fill" style={{ transform: `scaleX(${frac})` }} />
      </div>
    </div>
  );
}

export function formatDuration(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '—';
  if (s < 60) return `${Math.ceil(s)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** Seconds left at the rate so far; null until there is a rate. */
export function etaFrom(startedAt: number, now: number, done: number, total: number): number | null {
  if (done <= 0 || now <= startedAt) return null;
  return ((now - startedAt) / 1000 / done) * (total - done);
}
