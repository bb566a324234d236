/** The three states every screen has besides its content: empty, loading, error — each with a way forward. */
import type { ReactNode } from 'react';

export interface Action {
  label: string;
  onClick: () => void;
}

function Actions({ actions }: { actions?: Action[] }) {
  if (!actions?.length) return null;
  return (
    <div className="state-actions">
      {actions.map((a, i) => (
        <button key={a.label} className={i === 0 ? 'btn primary' : 'btn'} onClick={a.onClick}>
          {a.label}
        </button>
      ))}
    </div>
  );
}

export function EmptyState({ title, children, actions, testId }: { title: string; children?: ReactNode; actions?: Action[]; testId?: string }) {
  return (
    <div className="state empty" data-testid={testId ?? 'empty-state'}>
      <div className="state-title">{title}</div>
      {children && <div className="state-body">{children}</div>}
      <Actions actions={actions} />
    </div>
  );
}

export function LoadingState({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="state loading" role="status" aria-live="polite" data-testid="loading-state">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function ErrorState({ title = 'Something went wrong', error, actions }: { title?: string; error: string; actions?: Action[] }) {
  return (
    <div className="state error" role="alert" data-testid="error-state">
      <div className="state-title">{title}</div>
      <div className="state-body mono">{error}</div>
      <Actions actions={actions} />
    </div>
  );
}
