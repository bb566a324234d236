/** A titled chart panel with SVG and PNG downloads of what it shows. */
import { useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { downloadPng, downloadSvg } from '../charts/download';

export function ChartFrame({ title, file, children, aside }: { title: string; file: string; children: ReactNode; aside?: ReactNode }) {
  const body = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);
  const svg = () => body.current?.querySelector('svg') ?? null;
  const save = async (kind: 'svg' | 'png') => {
    const el = svg();
    if (!el) return setError('nothing drawn yet');
    setError(null);
    try {
      if (kind === 'svg') downloadSvg(el, file, title);
      else await downloadPng(el, file, title);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <section className="panel chart-frame" data-chart={file}>
      <header className="panel-head">
        <h3>{title}</h3>
        <div className="panel-tools">
          {aside}
          <button className="btn tiny" onClick={() => void save('svg')} title={`Download ${file}.svg`}>
            SVG
          </button>
          <button className="btn tiny" onClick={() => void save('png')} title={`Download ${file}.png`}>
            PNG
          </button>
        </div>
      </header>
      {error && <div className="inline-error">{error}</div>}
      <div ref={body}>{children}</div>
    </section>
  );
}
