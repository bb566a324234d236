/** Mounts a d3 chart into a div from an effect and feeds it data; React never touches its DOM. */
import { useEffect, useRef } from 'react';
import type { Chart } from './chart-kit';

export function useChart<D, C extends object>(factory: (node: HTMLElement, callbacks: C) => Chart<D>, data: D, callbacks: C) {
  const ref = useRef<HTMLDivElement>(null);
  const chart = useRef<Chart<D> | null>(null);
  const latest = useRef(callbacks);
  useEffect(() => {
    latest.current = callbacks;
  });
  useEffect(() => {
    // Callbacks are read at call time, so the chart always calls the current ones.
    const stable = new Proxy({} as C, {
      get: (_t, key) => {
        const f = (latest.current as Record<PropertyKey, unknown>)[key];
        return typeof f === 'function' ? (...args: unknown[]) => (f as (...a: unknown[]) => unknown)(...args) : f;
      },
    });
    if (!ref.current) return;
    const c = factory(ref.current, stable);
    chart.current = c;
    return () => {
      c.destroy();
      chart.current = null;
    };
  }, [factory]);
  // Live data can change several times between two frames (a batch of events, a resize): draw
  // at most once a frame, always the newest data. A pending frame is never re-scheduled, so a
  // steady stream of updates cannot starve the drawing.
  const latestData = useRef(data);
  const frame = useRef<number | null>(null);
  useEffect(() => {
    latestData.current = data;
    if (frame.current !== null) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = null;
      chart.current?.update(latestData.current);
    });
  }, [data]);
  useEffect(
    () => () => {
      if (frame.current !== null) cancelAnimationFrame(frame.current);
      frame.current = null;
    },
    [],
  );
  return ref;
}
