/**
 * The frame the Annotate and Judge audit screens share: heading, who is labelling and which queue
 * (LabelSetup), the store's error, and the states before there is a queue to label; `children`
 * renders the bench once there is one.
 */
import { useEffect } from 'react';
import type { ReactNode } from 'react';
import type { LabelKind, LabelQueueInfo } from '../../../../core/contract/contract';
import { EmptyState, ErrorState, LoadingState } from '../../components/StateViews';
import { navigate } from '../../nav/nav-store';
import { LabelSetup } from './LabelSetup';
import {
  loadItem,
  loadLabels,
  resetItem,
  selectAnnotator,
  selectAnnotators,
  selectLabelsError,
  selectLabelsStatus,
  selectQueue,
  useLabelsStore,
} from './labels-store';

export interface LabelsScreenProps {
  kind: LabelKind;
  testId: string;
  title: string;
  lede: ReactNode;
  defaultPerMatch: number;
  labelSetField?: boolean;
  /** Shown while the lab has no annotator yet. */
  noAnnotator: { title: string; body: ReactNode };
  /** Shown while no queue of this kind is chosen. */
  noQueue: { title: string; body: ReactNode };
  children: (queue: LabelQueueInfo) => ReactNode;
}

export function LabelsScreen({ kind, testId, title, lede, defaultPerMatch, labelSetField, noAnnotator, noQueue, children }: LabelsScreenProps) {
  const status = useLabelsStore(selectLabelsStatus);
  const error = useLabelsStore(selectLabelsError);
  const annotators = useLabelsStore(selectAnnotators);
  const annotator = useLabelsStore(selectAnnotator);
  const queue = useLabelsStore(selectQueue(kind));
  useEffect(() => {
    resetItem();
    void loadLabels();
  }, []);
  useEffect(() => {
    if (annotator && queue?.id) void loadItem(kind);
  }, [annotator, queue?.id, kind]);

  let body;
  if (status === 'idle' || status === 'loading') body = <LoadingState label="Loading labels…" />;
  else if (status === 'error')
    body = <ErrorState title="Could not load the labels" error={error ?? ''} actions={[{ label: 'Retry', onClick: () => void loadLabels() }]} />;
  else if (!annotators.length) body = <EmptyState title={noAnnotator.title}>{noAnnotator.body}</EmptyState>;
  else if (!queue)
    body = (
      <EmptyState title={noQueue.title} actions={[{ label: 'Play a match in the Arena', onClick: () => navigate('arena') }]}>
        {noQueue.body}
      </EmptyState>
    );
  else body = children(queue);
  return (
    <div className="screen" data-testid={testId}>
      <header className="screen-head">
        <h1>{title}</h1>
        <p className="lede">{lede}</p>
      </header>
      <LabelSetup kind={kind} defaultPerMatch={defaultPerMatch} labelSetField={labelSetField} />
      {error && status === 'ready' && (
        <div className="inline-error" role="alert" data-testid="labels-error">
          {error}
        </div>
      )}
      {body}
    </div>
  );
}
