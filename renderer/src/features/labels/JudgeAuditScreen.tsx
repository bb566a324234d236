/**
 * The judge audit: people label sampled episodes for resolution, quality tier and hallucination,
 * blind to the judge's verdict; then the judge's Table 1 scores against them, every disagreement,
 * and per match whether correcting the judge would move the judged win rate by more than ε or
 * flip the stopping decision.
 */
import { useEffect, useMemo, useState } from 'react';
import type { AuditReport, AuditValue, LabelItemView } from '../../../../core/contract/contract';
import { Badge } from '../../components/Badge';
import { EmptyState, ErrorState, LoadingState } from '../../components/StateViews';
import { navigate } from '../../nav/nav-store';
import { turnViews } from '../transcripts/transcript.data';
import { typingIn } from './AnnotateScreen';
import { fmtStat, impactBadge, impactWords, missingAuditFields, nextHallucination } from './labels.data';
import { LabelsScreen } from './LabelsScreen';
import { TierRubric } from './TierRubric';
import { TIER_RUBRIC } from './tier-rubric';
import {
  loadReport,
  selectAuditJudge,
  setAuditJudge,
  selectAuditReport,
  selectBusy,
  selectFinished,
  selectItem,
  selectItemError,
  selectLast,
  selectQueue,
  selectReportError,
  submit,
  undo,
  useLabelsStore,
} from './labels-store';

export function JudgeAuditScreen() {
  return (
    <LabelsScreen
      kind="audit"
      testId="screen-audit"
      title="Judge audit"
      lede="Check the automated judge the loop trusts (RL-ADA Table 1). The judge's verdict on an episode is shown only after you have given yours."
      defaultPerMatch={20}
      noAnnotator={{ title: 'Who is auditing?', body: 'Add an annotator above.' }}
      noQueue={{
        title: 'No audit queue yet',
        body: 'Create a queue above: it samples episodes of every match in the lab (n per match, spread over the scenarios).',
      }}
    >
      {() => (
        <>
          <AuditBench />
          <AuditResults />
        </>
      )}
    </LabelsScreen>
  );
}

const TIERS = [...TIER_RUBRIC].sort((a, b) => a.tier - b.tier);

function AuditBench() {
  const item = useLabelsStore(selectItem);
  const itemError = useLabelsStore(selectItemError);
  const finished = useLabelsStore(selectFinished);
  const last = useLabelsStore(selectLast);
  const busy = useLabelsStore(selectBusy);
  const v = item?.mine?.value;
  const mine = v && typeof v === 'object' ? v : null;
  const [resolved, setResolved] = useState<boolean | null>(mine?.resolved ?? null);
  const [tier, setTier] = useState<AuditValue['tier'] | null>(mine?.tier ?? null);
  const [hallucination, setHallucination] = useState<boolean | null>(mine?.hallucination ?? null);
  const [note, setNote] = useState(item?.mine?.note ?? '');
  // Enter (or a click) on an incomplete verdict says what is missing instead of doing nothing.
  const [asked, setAsked] = useState(false);
  // A new item (or its stored label) resets the form: adjusted while rendering, not in an effect
  // (react.dev, "Adjusting some state when a prop changes").
  const [formFor, setFormFor] = useState({ queueId: item?.queueId, pos: item?.pos, mine: item?.mine });
  if (formFor.queueId !== item?.queueId || formFor.pos !== item?.pos || formFor.mine !== item?.mine) {
    setFormFor({ queueId: item?.queueId, pos: item?.pos, mine: item?.mine });
    setResolved(mine?.resolved ?? null);
    setTier(mine?.tier ?? null);
    setHallucination(mine?.hallucination ?? null);
    setNote(item?.mine?.note ?? '');
    setAsked(false);
  }
  const complete = resolved !== null && tier !== null && hallucination !== null;
  const missing = missingAuditFields({ resolved, tier, hallucination });
  const send = () => {
    if (complete) void submit('audit', { resolved, tier, hallucination }, note);
    else setAsked(true);
  };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (typingIn(e) || e.altKey || e.metaKey) return;
      if ((e.key === 'z' && e.ctrlKey) || e.key === 'u') return void (e.preventDefault(), undo('audit'));
      if (e.ctrlKey) return;
      const n = Number(e.key);
      if (n >= 1 && n <= 4) setTier(n as AuditValue['tier']);
      else if (e.key === 'y') setResolved(true);
      else if (e.key === 'n') setResolved(false);
      else if (e.key === 'h') setHallucination(nextHallucination);
      else if (e.key === 's') void submit('audit', null, note);
      else if (e.key === 'Enter') send();
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  return (
    <section className="panel workbench" data-testid="audit-bench">
      {itemError && (
        <div className="inline-error" role="alert" data-testid="item-error">
          {itemError}
        </div>
      )}
      {finished && (
        <EmptyState title="Audit done" testId="queue-done" actions={[{ label: 'Undo the last label', onClick: () => void undo('audit') }]}>
          You have audited or skipped every episode of this queue; the results are below.
        </EmptyState>
      )}
      {item && (
        <>
          <div className="muted small" data-testid="item-position">
            Episode {item.pos + 1} of {item.total} · {item.done} audited by you
          </div>
          <AuditTranscript item={item} />
          <div className="audit-form">
            <Choice
              label="Resolved? (Y / N)"
              testId="audit-resolved"
              options={[
                [true, 'yes'],
                [false, 'no'],
              ]}
              value={resolved}
              onChange={setResolved}
            />
            <Choice
              label="Quality tier (1–4)"
              testId="audit-tier"
              options={TIERS.map((t) => [t.tier, `${t.tier} ${t.words}`] as [AuditValue['tier'], string])}
              value={tier}
              onChange={setTier}
            />
            <Choice
              label="Hallucination? (H: no, again: yes)"
              testId="audit-halluc"
              options={[
                [true, 'yes'],
                [false, 'no'],
              ]}
              value={hallucination}
              onChange={setHallucination}
            />
          </div>
          <TierRubric />
          <div className="form-row">
            <label className="grow">
              Note (optional)
              <input value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} data-testid="note" />
            </label>
            <button
              className="btn primary"
              disabled={busy}
              aria-disabled={!complete}
              title={complete ? undefined : `Still to choose: ${missing.join(', ')}`}
              onClick={send}
              data-testid="audit-submit"
            >
              <kbd>Enter</kbd> Save verdict
            </button>
            <button className="btn" disabled={busy} onClick={() => void submit('audit', null, note)} data-testid="skip">
              <kbd>S</kbd> Skip
            </button>
            <button className="btn" disabled={busy} onClick={() => void undo('audit')} data-testid="undo">
              <kbd>U</kbd> Undo
            </button>
          </div>
          {!complete && (
            <p className={asked ? 'inline-error' : 'hint'} role={asked ? 'alert' : undefined} data-testid="audit-missing">
              {asked ? 'Not saved: choose ' : 'Still to choose: '}
              {missing.join(', ')}.
            </p>
          )}
        </>
      )}
      {last?.source?.judge && (
        <p className="hint" data-testid="reveal" data-pos={last.pos}>
          Episode {last.source.episodeId}: the judge said resolved {last.source.judge.resolved ? 'yes' : 'no'}, tier {last.source.judge.tier}, hallucination{' '}
          {last.source.judge.hallucination ? 'yes' : 'no'} — {last.source.judge.rationale}
        </p>
      )}
    </section>
  );
}

function Choice<V extends string | number | boolean>({
  label,
  options,
  value,
  onChange,
  testId,
}: {
  label: string;
  options: [V, string][];
  value: V | null;
  onChange: (v: V) => void;
  testId: string;
}) {
  return (
    <div className="choice">
      <div className="small muted">{label}</div>
      <div className="label-buttons">
        {options.map(([v, text]) => (
          <button
            key={String(v)}
            className={`btn${value === v ? ' primary' : ''}`}
            aria-pressed={value === v}
            onClick={() => onChange(v)}
            data-testid={`${testId}-${String(v)}`}
          >
            {text}
          </button>
        ))}
      </div>
    </div>
  );
}

/** The episode as the customer and the DA lived it: words, tool calls and results — no rewards, no judge. */
function AuditTranscript({ item }: { item: LabelItemView }) {
  const turns = useMemo(() => turnViews({ turns: item.turns ?? [] }), [item.turns]);
  return (
    <ol className="turns audit-turns" data-testid="audit-transcript">
      {turns.map((t) => (
        <li key={t.index} className={`turn ${t.role}`}>
          <span className="turn-role">{t.role === 'customer' ? 'Customer' : 'Agent'}</span> {t.said && <span>{t.said}</span>}
          {t.tool && (
            <span className="mono small">
              {' '}
              → {t.tool}({t.toolArgs ? t.toolArgs.replace(/\s+/g, ' ') : ''}){' '}
              {t.toolResult && (
                <Badge tone={t.toolResult.ok ? 'ok' : 'bad'}>{t.toolResult.ok ? t.toolResult.text.replace(/\s+/g, ' ') : t.toolResult.error}</Badge>
              )}
            </span>
          )}
          {t.parseError && <span className="bad-text small"> unparseable output: {t.parseError}</span>}
        </li>
      ))}
    </ol>
  );
}

function AuditResults() {
  const report = useLabelsStore(selectAuditReport);
  const error = useLabelsStore(selectReportError);
  const queue = useLabelsStore(selectQueue('audit'));
  const item = useLabelsStore(selectItem);
  const finished = useLabelsStore(selectFinished);
  useEffect(() => {
    void loadReport('audit');
  }, [queue?.id, item?.pos, finished]);
  return (
    <>
      <JudgePicker />
      {error ? (
        <ErrorState title="Could not compute the audit" error={error} actions={[{ label: 'Retry', onClick: () => void loadReport('audit') }]} />
      ) : !report || report.queueId !== queue?.id ? (
        <LoadingState label="Computing the audit…" />
      ) : (
        <AuditResultsView r={report} />
      )}
    </>
  );
}

/** Which judge the people are compared with: the verdicts stored with the episodes, or any judge SPEC (re-judged on demand). */
function JudgePicker() {
  const current = useLabelsStore(selectAuditJudge);
  const [draft, setDraft] = useState(current);
  return (
    <form
      className="panel row-main"
      data-testid="audit-judge"
      onSubmit={(e) => {
        e.preventDefault();
        setAuditJudge(draft);
      }}
    >
      <label>
        Judge <input list="audit-judge-specs" value={draft} placeholder="stored verdicts" aria-label="judge SPEC" onChange={(e) => setDraft(e.target.value)} />
        <datalist id="audit-judge-specs">
          <option value="rule">the builtin rule judge, as it is now</option>
        </datalist>
      </label>
      <button type="submit" className="btn">
        Compare
      </button>
      <span className="muted small">empty: the verdicts stored with the episodes · rule · or an LLM endpoint saved in the lab</span>
    </form>
  );
}

function AuditResultsView({ r }: { r: AuditReport }) {
  return (
    <>
      <section className="panel" data-testid="audit-scores">
        <header className="panel-head">
          <h3>The judge against the audit (Table 1){r.judge ? ` · judge ${r.judge}` : ''}</h3>
          <span className="muted small">
            n = {r.n} episodes with a verdict{r.tied ? ` · ${r.tied} left out (annotators tied)` : ''} · annotators: {r.annotators.join(', ') || 'none yet'}
          </span>
        </header>
        {r.n === 0 ? (
          <EmptyState title="No audited episodes yet">Give a verdict on a few episodes above.</EmptyState>
        ) : (
          <table className="table compact">
            <tbody>
              <tr data-testid="audit-resolution-f1" data-value={r.resolution.f1}>
                <td>Resolution F1</td>
                <td className="num mono">{fmtStat(r.resolution.f1)}</td>
                <td className="muted">
                  precision {fmtStat(r.resolution.precision)}, recall {fmtStat(r.resolution.recall)} · tp {r.resolution.confusion.tp}, fp{' '}
                  {r.resolution.confusion.fp}, fn {r.resolution.confusion.fn}, tn {r.resolution.confusion.tn}
                </td>
              </tr>
              <tr data-testid="audit-tier-rho">
                <td>Tier Spearman ρ</td>
                <td className="num mono">{fmtStat(r.tierSpearman)}</td>
                <td className="muted">{r.tierSpearman === null ? 'undefined: one side has a single tier' : 'ties share average ranks'}</td>
              </tr>
              <tr data-testid="audit-halluc-f1" data-value={r.hallucination.f1}>
                <td>Hallucination F1</td>
                <td className="num mono">{fmtStat(r.hallucination.f1)}</td>
                <td className="muted">
                  tp {r.hallucination.confusion.tp}, fp {r.hallucination.confusion.fp}, fn {r.hallucination.confusion.fn}, tn {r.hallucination.confusion.tn}
                </td>
              </tr>
            </tbody>
          </table>
        )}
      </section>
      <section className="panel" data-testid="audit-disagreements">
        <header className="panel-head">
          <h3>Disagreements ({r.disagreements.length})</h3>
        </header>
        {r.disagreements.length === 0 ? (
          <p className="hint">The judge agrees with the audit on every field so far.</p>
        ) : (
          <div className="table-wrap">
            <table className="table compact">
              <thead>
                <tr>
                  <th>Episode</th>
                  <th>Field</th>
                  <th>People</th>
                  <th>Judge</th>
                  <th>Judge&apos;s rationale</th>
                </tr>
              </thead>
              <tbody>
                {r.disagreements.map((d) => (
                  <tr
                    key={`${d.pos}-${d.field}`}
                    className="clickable"
                    onClick={() => navigate('transcripts', null, { match: d.episodeId.split(':')[0], episode: d.episodeId })}
                  >
                    <td className="mono">{d.episodeId}</td>
                    <td>{d.field}</td>
                    <td>{String(d.label)}</td>
                    <td>{String(d.judged)}</td>
                    <td className="small">{d.rationale}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section className="panel" data-testid="audit-impact">
        <header className="panel-head">
          <h3>Would correcting the judge change the loop?</h3>
        </header>
        <div className="table-wrap">
          <table className="table compact">
            <thead>
              <tr>
                <th>Match</th>
                <th className="num">Audited</th>
                <th className="num">W_DA (arena)</th>
                <th className="num">W judged</th>
                <th className="num">W corrected</th>
                <th>Verdict</th>
              </tr>
            </thead>
            <tbody>
              {r.perMatch.map((m) => (
                <tr key={m.matchId} data-testid={`impact-${m.matchId}`} data-exceeds={m.exceedsEpsilon} data-flips={m.flips}>
                  <td className="mono">{m.matchId}</td>
                  <td className="num">{m.audited}</td>
                  <td className="num">{fmtStat(m.wDa)}</td>
                  <td className="num">{fmtStat(m.wJudge)}</td>
                  <td className="num">{fmtStat(m.wHuman)}</td>
                  <td>
                    <Badge tone={impactBadge(m).tone}>{impactBadge(m).text}</Badge> {impactWords(m, r.epsilon)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p className="hint">
          The arena&apos;s W_DA counts routing wins and does not read the judge, so no correction moves it. &ldquo;W judged&rdquo; is the share of CA-winnable
          episodes routed correctly <i>and</i> resolved by the judge; &ldquo;W corrected&rdquo; takes the audit&apos;s resolution on audited episodes. The
          stopping rule (τ_DA, P, ε, n_min, n_max of the matches&apos; config) is replayed over the queue&apos;s matches, oldest first, on each series.
        </p>
      </section>
    </>
  );
}
