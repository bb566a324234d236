/** The filtered episodes as a virtual list; rows are fetched a page at a time as they scroll into view. */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useRef } from 'react';
import type { EpisodeSummary } from '../../../../core/contract/contract';
import { Badge } from '../../components/Badge';
import { ensureRows, rowAt, selectPages, selectTotal, useTranscriptsStore } from './transcripts-store';
import { signed } from './transcript.data';

const ROW_HEIGHT = 50;

export function EpisodeList({ selectedId, onOpen }: { selectedId: string | null; onOpen: (id: string) => void }) {
  const total = useTranscriptsStore(selectTotal) ?? 0;
  const pages = useTranscriptsStore(selectPages);
  const scroller = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library -- a note for the React Compiler, which this app does not run; the rows are memoised by hand below
  const virtual = useVirtualizer({ count: total, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const items = virtual.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items.at(-1)?.index ?? 0;
  useEffect(() => {
    ensureRows(first, last);
  }, [first, last, total]);
  // Rows are memoised: while scrolling only the rows that enter the window render.
  const latest = useRef(onOpen);
  latest.current = onOpen;
  const open = useCallback((id: string) => latest.current(id), []);

  return (
    <div ref={scroller} className="virtual-list" data-testid="episode-list">
      <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
        {items.map((item) => {
          const e = rowAt(pages, item.index);
          return <EpisodeRow key={item.key} e={e} selected={!!e && e.id === selectedId} start={item.start} size={item.size} onOpen={open} />;
        })}
      </div>
    </div>
  );
}

const EpisodeRow = memo(function EpisodeRow({
  e,
  selected,
  start,
  size,
  onOpen,
}: {
  e: EpisodeSummary | undefined;
  selected: boolean;
  start: number;
  size: number;
  onOpen: (id: string) => void;
}) {
  return (
    <div
      className={`episode-row${selected ? ' selected' : ''}`}
      style={{ position: 'absolute', top: 0, left: 0, right: 0, height: size, transform: `translateY(${start}px)` }}
      data-testid={e ? `episode-row-${e.id}` : undefined}
      data-winner={e?.winner}
      role="button"
      tabIndex={0}
      onClick={() => e && onOpen(e.id)}
      onKeyDown={(ev) => (ev.key === 'Enter' || ev.key === ' ') && e && onOpen(e.id)}
    >
      {e ? (
        <>
          <div className="row-main">
            <span className="mono">{e.id}</span>
            <span className="scenario">{e.scenarioId}</span>
            {e.fraudReference && <Badge tone="fraud">fraud ref.</Badge>}
          </div>
          <div className="row-sub">
            <Badge tone={e.winner === 'DA' ? 'da' : 'ca'}>{e.winner} won</Badge>
            <span title="r_DA">r_DA {signed(e.rDa)}</span>
            <span title="r_CA">r_CA {signed(e.rCa)}</span>
            <span title="judge score J">J {signed(e.judge.score)}</span>
            {!e.judge.resolved && <Badge tone="warn">unresolved</Badge>}
            {e.judge.hallucination && (
              <Badge tone="bad" title="the judge found a statement no tool result supports">
                halluc.
              </Badge>
            )}
          </div>
        </>
      ) : (
        <div className="row-skeleton" />
      )}
    </div>
  );
});
