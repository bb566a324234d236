/**
 * The Studies store's estimate state from engine events: an estimate the engine plays because the
 * study was started with one (no request waits for it) shows its progress, goes when the study's
 * status is told, and shows its failure; one asked for here is kept until its request settles.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { RequestName } from '../../../../core/contract/contract';
import type { EngineEvent } from '../../../../core/contract/run-service';
import { setTransport } from '../../engine/client';
import type { Transport } from '../../transport/transport';
import { applyStudyEvent, estimateStudy, useStudiesStore } from './studies-store';

/** A transport whose `studies/estimate` waits until `finish` is called; the lists answer empty. */
function transport() {
  let finish = () => undefined as void;
  const t = {
    kind: 'websocket',
    request: (name: RequestName) => {
      if (name === 'studies/estimate') return new Promise((resolve) => (finish = () => resolve({})));
      return Promise.resolve(name === 'studies/list' ? [] : {});
    },
    onEvent: () => () => undefined,
    onState: () => () => undefined,
    close: () => undefined,
  } as unknown as Transport;
  return { t, finish: () => finish() };
}

const progress = (done: number, label: string | null, error?: string): EngineEvent => ({
  name: 'study/estimate',
  payload: { studyId: 'S1', speak: 'train', done, total: 4, label, ...(error !== undefined ? { error } : {}) },
});
const status: EngineEvent = { name: 'study/status', payload: { studyId: 'S1', status: 'finished' } };

beforeEach(() => useStudiesStore.setState({ estimating: {}, estimateError: {} }));

describe('the estimate a study was started with', () => {
  it('shows its progress from the events alone, and goes when the study says it is done', () => {
    setTransport(transport().t);
    applyStudyEvent(progress(1, 'estimate full/1: DA0 vs CA3'));
    expect(useStudiesStore.getState().estimating.S1).toEqual({ speak: 'train', done: 1, total: 4, label: 'estimate full/1: DA0 vs CA3' });
    applyStudyEvent(status);
    expect(useStudiesStore.getState().estimating.S1).toBeUndefined();
  });

  it('shows its failure: no request waits for it', () => {
    setTransport(transport().t);
    applyStudyEvent(progress(1, null));
    applyStudyEvent(progress(0, null, 'run R3 (full/2) has no DA or CA checkpoint'));
    expect(useStudiesStore.getState().estimating.S1).toBeUndefined();
    expect(useStudiesStore.getState().estimateError.S1).toBe('run R3 (full/2) has no DA or CA checkpoint');
  });

  it('an estimate asked for here stays shown through a status event until its request settles', async () => {
    const { t, finish } = transport();
    setTransport(t);
    const asked = estimateStudy('S1', 'train');
    applyStudyEvent(progress(2, null));
    applyStudyEvent(status);
    expect(useStudiesStore.getState().estimating.S1?.done).toBe(2);
    finish();
    await asked;
    expect(useStudiesStore.getState().estimating.S1).toBeUndefined();
  });
});
