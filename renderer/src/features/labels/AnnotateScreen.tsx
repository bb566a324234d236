/**
 * The tactic annotation workbench: the CA's opening utterances one at a time, blind (match and CA
 * checkpoint revealed only after labelling), hotkeys 1–9, S to skip, U to undo; then Table 5 per
 * match, agreement between annotators, the automatic measures against the labels and the
 * rule-based classifier's agreement with people.
 */
import { TableExport } from '../../components/TableExport';
import { TacticTables } from './TacticTables';
import { useEffect, useMemo, useState } from 'react';
import type { TacticReport } from '../../../../core/contract/contract';
import { ChartFrame } from '../../components/ChartFrame';
import { EmptyState, ErrorState, LoadingState } from '../../components/StateViews';
import { useChart } from '../../charts/use-chart';
import { createMeasureStripChart } from './create-measure-strip-chart';
import { createTacticBarsChart } from './create-tactic-bars-chart';
import { fmtStat, kappaWords, MEASURES, measureStrip, tacticBars } from './labels.data';
import type { MeasureKey } from './labels.data';
import { LabelsScreen } from './LabelsScreen';
import { MatchCheckpointIdentity } from '../runs/RunIdentity';
import {
  loadReport,
  selectBusy,
  selectFinished,
  selectItem,
  selectItemError,
  selectItemStatus,
  selectLast,
  selectQueue,
  selectReportError,
  selectTacticReport,
  submit,
  undo,
  useLabelsStore,
} from './labels-store';

/** Keys typed into a field are text, not commands. */
export function typingIn(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  return !!t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
}

export function AnnotateScreen() {
  return (
    <LabelsScreen
      kind="tactic"
      testId="screen-annotate"
      title="Annotate"
      lede="Name the tactics in the CA's openings (RL-ADA Table 5). The match and CA checkpoint stay hidden until you have labelled an item."
      defaultPerMatch={50}
      labelSetField
      noAnnotator={{ title: 'Who is labelling?', body: "Add an annotator above; each person's labels are kept apart, so agreement can be measured." }}
      noQueue={{
        title: 'No tactic queue yet',
        body: "Create a queue above: it samples the CA's opening utterances of every match in the lab (n per match, spread over the scenarios).",
      }}
    >
      {(queue) => (
        <>
          <Workbench labels={queue.labels} />
          <TacticResults />
        </>
      )}
    </LabelsScreen>
  );
}

function Workbench({ labels }: { labels: string[] }) {
  const item = useLabelsStore(selectItem);
  const itemStatus = useLabelsStore(selectItemStatus);
  const itemError = useLabelsStore(selectItemError);
  const finished = useLabelsStore(selectFinished);
  const last = useLabelsStore(selectLast);
  const busy = useLabelsStore(selectBusy);
  const [note, setNote] = useState(item?.mine?.note ?? '');
  // A new item (or its stored note) resets the draft: adjusted while rendering, not in an effect
  // (react.dev, "Adjusting some state when a prop changes").
  const noteKey = `${item?.queueId}/${item?.pos}/${item?.mine?.note}`;
  const [noteFor, setNoteFor] = useState(noteKey);
  if (noteFor !== noteKey) {
    setNoteFor(noteKey);
    setNote(item?.mine?.note ?? '');
  }

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (typingIn(e) || e.altKey || e.metaKey) return;
      if ((e.key === 'z' && e.ctrlKey) || (e.key === 'u' && !e.ctrlKey)) {
        e.preventDefault();
        void undo('tactic');
        return;
      }
      if (e.ctrlKey) return;
      const n = Number(e.key);
      if (Number.isInteger(n) && n >= 1 && n <= labels.length) {
        e.preventDefault();
        void submit('tactic', labels[n - 1]!, note);
      } else if (e.key === 's') {
        e.preventDefault();
        void submit('tactic', null, note);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [labels, note]);

  return (
    <section className="panel workbench" data-testid="workbench">
      {itemError && (
        <div className="inline-error" role="alert" data-testid="item-error">
          {itemError}
        </div>
      )}
      {itemStatus === 'loading' && !item && <LoadingState label="Loading the next opening…" />}
      {finished && (
        <EmptyState title="Queue done" testId="queue-done" actions={[{ label: 'Undo the last label', onClick: () => void undo('tactic') }]}>
          You have labelled or skipped every item of this queue. Skipped items come back first; the results are below.
        </EmptyState>
      )}
      {item && (
        <>
          <div className="muted small" data-testid="item-position">
            Item {item.pos + 1} of {item.total} · {item.done} labelled by you{item.mine?.value === null ? ' · skipped before' : ''}
          </div>
          <blockquote className="utterance" data-testid="utterance" data-pos={item.pos}>
            {item.text}
          </blockquote>
          <div className="label-buttons">
            {labels.map((l, i) => (
              <button
                key={l}
                className={`btn${item.mine?.value === l ? ' primary' : ''}`}
                disabled={busy}
                onClick={() => void submit('tactic', l, note)}
                data-testid={`label-${i + 1}`}
                title={`hotkey ${i + 1}`}
              >
                <kbd>{i + 1}</kbd> {l}
              </button>
            ))}
          </div>
          <div className="form-row">
            <label className="grow">
              Note (optional, saved with the label)
              <input value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} data-testid="note" />
            </label>
            <button className="btn" disabled={busy} onClick={() => void submit('tactic', null, note)} data-testid="skip">
              <kbd>S</kbd> Skip
            </button>
            <button className="btn" disabled={busy} onClick={() => void undo('tactic')} data-testid="undo">
              <kbd>U</kbd> Undo
            </button>
          </div>
        </>
      )}
      {last?.source && (
        <p className="hint" data-testid="reveal" data-pos={last.pos}>
          Item {last.pos + 1} ({typeof last.mine?.value === 'string' ? last.mine.value : 'no tactic'}) came from {last.source.matchId}, CA {last.source.caSpec}{' '}
          vs DA {last.source.daSpec}, scenario {last.source.scenarioId}.
        </p>
      )}
      {last?.source && <MatchCheckpointIdentity matchId={last.source.matchId} spec={last.source.caSpec} role="CA" testId="reveal-identity" />}
    </section>
  );
}

function TacticResults() {
  const report = useLabelsStore(selectTacticReport);
  const error = useLabelsStore(selectReportError);
  const queue = useLabelsStore(selectQueue('tactic'));
  const item = useLabelsStore(selectItem);
  const finished = useLabelsStore(selectFinished);
  useEffect(() => {
    void loadReport('tactic');
  }, [queue?.id, item?.pos, finished]);
  if (error) return <ErrorState title="Could not compute the results" error={error} actions={[{ label: 'Retry', onClick: () => void loadReport('tactic') }]} />;
  if (!report || report.queueId !== queue?.id) return <LoadingState label="Computing results…" />;
  return <TacticResultsView report={report} />;
}

/** Mounted once a report is in, so the charts' nodes exist when they are created. */
function TacticResultsView({ report }: { report: TacticReport }) {
  const [measure, setMeasure] = useState<MeasureKey>('entityDensity');
  const bars = useMemo(() => ({ labels: report.labels, bars: tacticBars(report) }), [report]);
  const strip = useMemo(() => ({ strip: measureStrip(report, measure), measure: MEASURES.find((m) => m.key === measure)!.label }), [report, measure]);
  const barsRef = useChart(createTacticBarsChart, bars, {});
  const stripRef = useChart(createMeasureStripChart, strip, {});
  const a = report.agreement;
  return (
    <>
      <section className="panel" data-testid="agreement">
        <header className="panel-head">
          <h3>Agreement</h3>
          <span className="muted small">annotators with labels: {report.annotators.join(', ') || 'none yet'}</span>
          <TableExport id={report.queueId} name="agreement" label={`the agreement of ${report.queueId}`} />
        </header>
        <table className="table compact">
          <tbody>
            {a.pairs.map((p) => (
              <tr key={`${p.a}|${p.b}`} data-testid="cohen-kappa" data-a={p.a} data-b={p.b} data-value={p.value ?? ''}>
                <td>
                  Cohen&apos;s κ · {p.a} vs {p.b}
                </td>
                <td className="num mono">{fmtStat(p.value)}</td>
                <td className="muted">
                  {kappaWords(p.value)} · n = {p.n}
                </td>
              </tr>
            ))}
            {a.fleiss && (
              <tr data-testid="fleiss-kappa">
                <td>Fleiss&apos; κ · all annotators</td>
                <td className="num mono">{fmtStat(a.fleiss.value)}</td>
                <td className="muted">
                  {kappaWords(a.fleiss.value)} · n = {a.fleiss.n} items labelled by everyone
                </td>
              </tr>
            )}
            {a.alpha && (
              <tr data-testid="kripp-alpha">
                <td>Krippendorff&apos;s α (nominal)</td>
                <td className="num mono">{fmtStat(a.alpha.value)}</td>
                <td className="muted">n = {a.alpha.n} items with ≥ 2 labels</td>
              </tr>
            )}
            <tr data-testid="auto-kappa">
              <td>Rule-based classifier vs consensus, Cohen&apos;s κ</td>
              <td className="num mono">{fmtStat(report.auto.consensus.value)}</td>
              <td className="muted">
                n = {report.auto.consensus.n} · per annotator: {report.auto.perAnnotator.map((p) => `${p.annotator} ${fmtStat(p.value)}`).join(', ') || '—'}
              </td>
            </tr>
          </tbody>
        </table>
        {a.pairs.length === 0 && <p className="hint">Agreement needs two annotators on the same items.</p>}
        <p className="hint">
          The tactic classifier reads pressure words, entity count and length, and the intent&apos;s own and other tools&apos; cue phrases.
        </p>
      </section>
      <ChartFrame title="Tactic distribution per match (RL-ADA Table 5)" file={`tactics-${report.queueId}`}>
        <div ref={barsRef} className="chart" data-testid="tactic-bars" />
        <p className="hint">Each item&apos;s annotators share one vote; items nobody has labelled are left out.</p>
      </ChartFrame>
      <TacticTables report={report} />
      <ChartFrame
        title="Automatic measures against the human labels"
        file={`tactic-measures-${report.queueId}`}
        aside={
          <select value={measure} onChange={(e) => setMeasure(e.target.value as MeasureKey)} data-testid="measure-select">
            {MEASURES.map((m) => (
              <option key={m.key} value={m.key}>
                {m.label}
              </option>
            ))}
          </select>
        }
      >
        <div ref={stripRef} className="chart" data-testid="measure-strip" />
      </ChartFrame>
    </>
  );
}
