import { afterEach, describe, expect, it, vi } from 'vitest';
import { throttledProgress } from './progress';

describe('throttledProgress', () => {
  afterEach(() => vi.restoreAllMocks());
  it('reports the first call, then at most one per interval, and always the last', () => {
    let now = 1_000;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const seen: number[] = [];
    const p = throttledProgress(250, (done) => seen.push(done));
    p(1, 10);
    now += 100;
    p(2, 10); // within the interval: dropped
    now += 200;
    p(3, 10);
    p(10, 10); // the last always goes out
    expect(seen).toEqual([1, 3, 10]);
  });
});
