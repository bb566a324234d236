/**
 * Play: a person in the customer's or the agent's seat against a DA or CA policy, or taking over
 * a stored episode at a turn. The session lives in the engine and in the lab after every move;
 * the route holds its id, so a reload (or a closed window) resumes it.
 */
import { useEffect, useMemo, useState } from 'react';
import type { PlaySeat, PlayTurn, PlayView } from '../../../../core/contract/contract';
import { Badge } from '../../components/Badge';
import { ProgressBar } from '../../components/ProgressBar';
import { FACT_LABELS } from '../../glossary/glossary';
import { EmptyState, ErrorState, LoadingState } from '../../components/StateViews';
import { formatTime, policyLabel } from '../../format';
import { selectInfo, useEngineStore } from '../../engine/engine-store';
import { navigate, selectParams, selectRouteId, useNavStore } from '../../nav/nav-store';
import { Episode } from '../transcripts/EpisodeView';
import { useLabIndex } from '../runs/lab-index-store';
import { policyOptionLabel } from '../runs/run-identity';
import { CheckpointIdentity } from '../runs/RunIdentity';
import { customerSees, idSuggestions, intentInWords, toolArgs } from './play.data';
import {
  act,
  clearPlayError,
  discardPlay,
  forkEpisode,
  leavePlay,
  loadPlayLists,
  resumePlay,
  selectBusy,
  selectCheckpoints,
  selectEpisodes,
  selectError,
  selectListError,
  selectListStatus,
  selectPlayer,
  selectSessions,
  selectSetup,
  selectTraining,
  selectView,
  setPlayer,
  startPlay,
  usePlayStore,
} from './play-store';

export function PlayScreen() {
  const id = useNavStore(selectRouteId);
  const params = useNavStore(selectParams);
  const view = usePlayStore(selectView);
  const busy = usePlayStore(selectBusy);
  const error = usePlayStore(selectError);

  useEffect(() => {
    void loadPlayLists();
  }, []);
  // The route names the session: open it here if this window does not show it yet. Only a route
  // change runs this, so the session state is read as it is then, not as a dependency: starting
  // a session sets the view a moment before the route names it, and reacting to that view would
  // close the session just started (or retry a refused resume in a loop).
  useEffect(() => {
    const { view: shown, busy: working } = usePlayStore.getState();
    if (id && shown?.sessionId !== id && !working) void resumePlay(id);
    if (!id && shown) leavePlay();
  }, [id]);

  const open = id !== null && view?.sessionId === id;
  return (
    <div className="screen play" data-testid="screen-play">
      <header className="screen-head">
        <h1>Play</h1>
        <p className="lede">
          Sit in either seat of an arena episode: the customer against a DA, or the agent against a CA. The episode is judged and rewarded exactly as an arena
          episode and stored, marked as played by you.
        </p>
      </header>
      {id !== null && !open && busy && <LoadingState label={`Opening ${id}…`} />}
      {id !== null && !open && !busy && error && (
        <ErrorState title={`Could not open ${id}`} error={error} actions={[{ label: 'Back to Play', onClick: () => navigate('play') }]} />
      )}
      {open && view && <Session v={view} />}
      {id === null && (params.fork ? <ForkForm episodeId={params.fork} turn={Number(params.turn ?? 0)} /> : <StartForm />)}
      {id === null && <Lists />}
    </div>
  );
}

function PlayerField() {
  const player = usePlayStore(selectPlayer);
  return (
    <label>
      Your name
      <input value={player} maxLength={60} onChange={(e) => setPlayer(e.target.value)} placeholder="e.g. Ada" data-testid="play-player" />
    </label>
  );
}

function SeatField({ seat, onChange }: { seat: PlaySeat; onChange: (s: PlaySeat) => void }) {
  return (
    <label>
      Your seat
      <select value={seat} onChange={(e) => onChange(e.target.value as PlaySeat)} data-testid="play-seat">
        <option value="customer">customer (against a DA)</option>
        <option value="agent">agent (against a CA)</option>
      </select>
    </label>
  );
}

function OpponentField({ seat, value, onChange, extra }: { seat: PlaySeat; value: string; onChange: (v: string) => void; extra?: string }) {
  const info = useEngineStore(selectInfo);
  const options = (seat === 'customer' ? info?.policies.da : info?.policies.ca) ?? ['scripted'];
  const all = extra !== undefined && !options.includes(extra) ? [extra, ...options] : options;
  const human = new Map(usePlayStore(selectCheckpoints).map((c) => [c.name, c.humanEpisodes]));
  const lab = useLabIndex();
  return (
    <label>
      {seat === 'customer' ? 'DA to talk to' : 'CA calling in'}
      <select className="identity-select" value={value} onChange={(e) => onChange(e.target.value)} data-testid="play-opponent">
        {all.map((p) => (
          <option key={p || 'stored'} value={p}>
            {p ? policyOptionLabel(p, seat === 'customer' ? 'DA' : 'CA', lab) : 'the stored episode\u2019s policy'}
            {human.get(p) ? ` \u00b7 saw ${human.get(p)} human episodes` : ''}
          </option>
        ))}
      </select>
    </label>
  );
}

function StartForm() {
  const setup = usePlayStore(selectSetup);
  const player = usePlayStore(selectPlayer);
  const busy = usePlayStore(selectBusy);
  const training = usePlayStore(selectTraining);
  const error = usePlayStore(selectError);
  const [seat, setSeat] = useState<PlaySeat>('customer');
  const [opponent, setOpponent] = useState('scripted');
  const [scenarioId, setScenarioId] = useState('');
  const [seed, setSeed] = useState('');
  const ok = player.trim() !== '' && (seed === '' || Number.isInteger(Number(seed)));
  const start = async () => {
    const v = await startPlay({ seat, player: player.trim(), opponent, ...(scenarioId ? { scenarioId } : {}), ...(seed !== '' ? { seed: Number(seed) } : {}) });
    if (v) navigate('play', v.sessionId);
  };
  return (
    <section className="panel" data-testid="play-start">
      <header className="panel-head">
        <h3>New episode</h3>
      </header>
      <form
        className="form-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (ok && !busy) void start();
        }}
      >
        <PlayerField />
        <SeatField
          seat={seat}
          onChange={(s) => {
            setSeat(s);
            setOpponent('scripted');
          }}
        />
        <OpponentField seat={seat} value={opponent} onChange={setOpponent} />
        <label>
          Scenario
          <select value={scenarioId} onChange={(e) => setScenarioId(e.target.value)} data-testid="play-scenario">
            <option value="">let Sparring draw one</option>
            {[...new Set((setup?.scenarios ?? []).map((s) => s.set))].map((set) => (
              <optgroup key={set} label={set}>
                {setup!.scenarios
                  .filter((s) => s.set === set)
                  .map((s) => (
                    <option key={s.id} value={s.id}>
                      {s.title} ({s.set})
                    </option>
                  ))}
              </optgroup>
            ))}
          </select>
        </label>
        <label>
          Seed
          <input value={seed} onChange={(e) => setSeed(e.target.value)} placeholder="random" inputMode="numeric" data-testid="play-seed" />
        </label>
        <button className="btn primary" type="submit" disabled={!ok || busy} data-testid="play-start-button">
          {busy ? (training ? 'Training the DA…' : 'Starting…') : 'Start'}
        </button>
      </form>
      <CheckpointIdentity spec={opponent} role={seat === 'customer' ? 'DA' : 'CA'} testId="play-opponent-identity" />
      {!player.trim() && <p className="hint">Your name is stored with the episode.</p>}
      {busy && training && (
        <div data-testid="play-training">
          <ProgressBar label={training.label} done={training.done} total={training.total} etaSeconds={null} />
        </div>
      )}
      {error && (
        <p className="inline-error" role="alert" data-testid="play-error">
          {error}
        </p>
      )}
    </section>
  );
}

function ForkForm({ episodeId, turn }: { episodeId: string; turn: number }) {
  const player = usePlayStore(selectPlayer);
  const busy = usePlayStore(selectBusy);
  const error = usePlayStore(selectError);
  const [seat, setSeat] = useState<PlaySeat>('agent');
  const [opponent, setOpponent] = useState('');
  const ok = player.trim() !== '' && Number.isInteger(turn) && turn >= 0;
  const go = async () => {
    const v = await forkEpisode({ episodeId, turn, seat, player: player.trim(), ...(opponent ? { opponent } : {}) });
    if (v) navigate('play', v.sessionId);
  };
  return (
    <section className="panel" data-testid="play-fork">
      <header className="panel-head">
        <h3>
          Take over <span className="mono">{episodeId}</span> at turn {turn}
        </h3>
        <button className="btn tiny" onClick={() => navigate('play')}>
          Cancel
        </button>
      </header>
      <p className="hint">
        Turns before {turn} are replayed on the same seeded world; from turn {turn} on, you play your seat.
      </p>
      <form
        className="form-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (ok && !busy) void go();
        }}
      >
        <PlayerField />
        <SeatField
          seat={seat}
          onChange={(s) => {
            setSeat(s);
            setOpponent('');
          }}
        />
        <OpponentField seat={seat} value={opponent} onChange={setOpponent} extra="" />
        <button className="btn primary" type="submit" disabled={!ok || busy} data-testid="play-fork-button">
          {busy ? 'Replaying…' : 'Take over'}
        </button>
      </form>
      <p className="hint">An empty opponent keeps the stored episode&apos;s policy in the other seat.</p>
      {error && (
        <p className="inline-error" role="alert" data-testid="play-error">
          {error}
        </p>
      )}
    </section>
  );
}

function Lists() {
  const sessions = usePlayStore(selectSessions);
  const episodes = usePlayStore(selectEpisodes);
  const status = usePlayStore(selectListStatus);
  const error = usePlayStore(selectListError);
  if (status === 'loading') return <LoadingState label="Loading sessions…" />;
  if (status === 'error')
    return <ErrorState title="Could not load play sessions" error={error ?? ''} actions={[{ label: 'Retry', onClick: () => void loadPlayLists() }]} />;
  return (
    <div className="two-col">
      <section className="panel" data-testid="play-sessions">
        <header className="panel-head">
          <h3>Unfinished sessions</h3>
        </header>
        {sessions.length === 0 ? (
          <EmptyState title="No unfinished sessions" testId="play-sessions-empty">
            A session you leave mid-episode (or whose window closes) waits here to be resumed or discarded.
          </EmptyState>
        ) : (
          <table className="table compact">
            <tbody>
              {sessions.map((s) => (
                <tr key={s.sessionId} data-testid={`play-session-${s.sessionId}`}>
                  <td>
                    {s.player} · {s.seat} vs <span className="mono">{policyLabel(s.opponent, s.opponentCheckpoint)}</span>
                    <div className="muted small">
                      {s.turns} turns · {formatTime(s.updatedAt)}
                      {s.forkedFrom && ` · from ${s.forkedFrom.episodeId} turn ${s.forkedFrom.turn}`}
                    </div>
                  </td>
                  <td className="actions">
                    <button className="btn tiny" onClick={() => navigate('play', s.sessionId)}>
                      Resume
                    </button>
                    <button className="btn tiny danger" onClick={() => void discardPlay(s.sessionId)}>
                      Discard
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="panel" data-testid="play-episodes">
        <header className="panel-head">
          <h3>Human-played episodes</h3>
        </header>
        {episodes.length === 0 ? (
          <EmptyState title="No human-played episodes yet">Finish an episode above; it is stored with your name and seat.</EmptyState>
        ) : (
          <table className="table compact">
            <tbody>
              {episodes.map((e) => (
                <tr
                  key={e.episodeId}
                  className="clickable"
                  onClick={() => navigate('transcripts', null, { episode: e.episodeId })}
                  data-testid={`human-episode-${e.episodeId}`}
                >
                  <td className="mono">{e.episodeId}</td>
                  <td>
                    {e.player} · {e.seat}
                  </td>
                  <td className="mono">{policyLabel(e.opponent, e.opponentCheckpoint)}</td>
                  <td>
                    <Badge tone={e.winner === 'DA' ? 'da' : 'ca'}>{e.winner} won</Badge>
                  </td>
                  <td className="muted small">{e.forkedFrom ? `fork of ${e.forkedFrom.episodeId} @${e.forkedFrom.turn}` : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}

function Session({ v }: { v: PlayView }) {
  const error = usePlayStore(selectError);
  // The customer's seat sees what a caller hears; the agent's internals only on a researcher's request.
  const [internals, setInternals] = useState(false);
  const hidden = v.seat === 'customer' && !internals;
  return (
    <div className="play-session" data-testid="play-session" data-session={v.sessionId} data-status={v.status}>
      <section className="panel">
        <header className="panel-head">
          <h3>
            {v.player} as the {v.seat} · against <span className="mono">{policyLabel(v.opponent, v.opponentCheckpoint)}</span>
          </h3>
          <div className="panel-tools">
            {v.forkedFrom && (
              <Badge>
                fork of {v.forkedFrom.episodeId} at turn {v.forkedFrom.turn}
              </Badge>
            )}
            <span className="muted small" data-testid="play-steps">
              agent steps {v.daSteps}/{v.maxDaTurns}
            </span>
            <button className="btn tiny" onClick={() => navigate('play')} data-testid="play-leave">
              {v.status === 'finished' ? 'New episode' : 'Leave (keep for later)'}
            </button>
          </div>
        </header>
        <CheckpointIdentity spec={v.opponentCheckpoint?.name ?? v.opponent} role={v.seat === 'customer' ? 'DA' : 'CA'} testId="play-session-identity" />
        <Brief v={v} />
      </section>
      {v.status === 'playing' && (
        <section className="panel">
          <header className="panel-head">
            <h3>Conversation</h3>
            {v.seat === 'customer' && (
              <label className="check small" title="A real caller never sees these; researchers may want to.">
                <input type="checkbox" checked={internals} onChange={(e) => setInternals(e.target.checked)} data-testid="play-show-internals" />
                Show the agent&apos;s internals (thinking, tool calls and results)
              </label>
            )}
          </header>
          <ol className="turns" data-testid="play-turns">
            {v.turns.map((t) => (
              <LiveTurn key={t.index} t={t} hideInternals={hidden} />
            ))}
          </ol>
          {error && (
            <p className="inline-error" role="alert" data-testid="play-error">
              {error}{' '}
              <button className="btn tiny" onClick={clearPlayError}>
                Dismiss
              </button>
            </p>
          )}
          {v.seat === 'customer' ? <CustomerComposer sessionId={v.sessionId} /> : <AgentComposer v={v} />}
        </section>
      )}
      {v.status === 'finished' && v.episode && (
        <div data-testid="play-result">
          <Episode e={v.episode} />
        </div>
      )}
    </div>
  );
}

function Brief({ v }: { v: PlayView }) {
  if (!v.customer) {
    return (
      <p className="hint" data-testid="play-brief">
        Caller ID <span className="mono">{v.callerPhone}</span>. The customer&apos;s intent is hidden until the call ends: find out what they need, verify them
        with lookup_account, call the right tool, explain the result and end the call.
      </p>
    );
  }
  const c = v.customer;
  return (
    <dl className="facts" data-testid="play-brief">
      <div>
        <dt>{v.seat === 'customer' ? 'Your goal (keep it to yourself)' : 'The customer\u2019s goal was'}</dt>
        <dd data-testid="play-intent" data-intent={c.intent} title={`intent: ${c.intent}`}>
          {intentInWords(c.intent)}
        </dd>
      </div>
      <div>
        <dt>Scenario</dt>
        <dd>{c.scenarioTitle}</dd>
      </div>
      <div>
        <dt>You are</dt>
        <dd>{c.name}</dd>
      </div>
      {Object.entries(c.facts).map(([k, x]) => (
        <div key={k}>
          <dt>{FACT_LABELS[k] ?? k}</dt>
          <dd data-fact={k}>{String(x)}</dd>
        </div>
      ))}
    </dl>
  );
}

function LiveTurn({ t, hideInternals }: { t: PlayTurn; hideInternals: boolean }) {
  if (hideInternals && t.role === 'agent') {
    const seen = customerSees(t);
    return (
      <li className="turn agent" data-turn={t.index}>
        <div className="turn-side">
          <span className="turn-role">Agent</span>
          <span className="muted mono">#{t.index}</span>
        </div>
        <div className="turn-body">
          {seen.said !== null && <div className="said">{seen.said}</div>}
          {seen.usedTool && <div className="muted small">The agent looks something up…</div>}
        </div>
      </li>
    );
  }
  return (
    <li className={`turn ${t.role}`} data-turn={t.index}>
      <div className="turn-side">
        <span className="turn-role">{t.role === 'customer' ? 'Customer' : 'Agent'}</span>
        <span className="muted mono">#{t.index}</span>
      </div>
      <div className="turn-body">
        {t.thinking && <div className="thinking">{t.thinking}</div>}
        {t.actionType && <Badge tone={t.actionType === 'tool_call' ? 'da' : 'neutral'}>{t.actionType}</Badge>}
        {t.said !== null && <div className="said">{t.said}</div>}
        {t.tool && (
          <div className="tool-call">
            <span className="tool-name">{t.tool}</span>
            <pre className="code">{JSON.stringify(t.toolArgs)}</pre>
          </div>
        )}
        {t.toolResult && (
          <details className={`tool-result ${t.toolResult.ok ? 'ok' : 'err'}`} open data-testid="tool-result">
            <summary>{t.toolResult.ok ? 'result' : `error · ${t.toolResult.error.code}: ${t.toolResult.error.message}`}</summary>
            <pre className="code">{JSON.stringify(t.toolResult.ok ? t.toolResult.data : t.toolResult.error, null, 2)}</pre>
          </details>
        )}
        {t.parseError && <div className="parse-error">Unparseable output: {t.parseError}</div>}
      </div>
    </li>
  );
}

function MessageBox({ value, onChange, testId, placeholder }: { value: string; onChange: (s: string) => void; testId: string; placeholder: string }) {
  const max = usePlayStore(selectSetup)?.maxMessageChars ?? 1000;
  return (
    <>
      <textarea value={value} onChange={(e) => onChange(e.target.value)} rows={2} placeholder={placeholder} data-testid={testId} />
      <span className={`small ${value.trim().length > max ? 'bad-text' : 'muted'}`}>
        {value.trim().length}/{max}
      </span>
    </>
  );
}

function CustomerComposer({ sessionId }: { sessionId: string }) {
  const busy = usePlayStore(selectBusy);
  const [text, setText] = useState('');
  // An episode is judged when the agent ends the call or reaches its turn limit; a caller who hangs
  // up first leaves nothing to judge, so hanging up discards the call instead of storing half an episode.
  const hangUp = async () => {
    await discardPlay(sessionId);
    navigate('play');
  };
  const send = async () => {
    if (await act({ kind: 'say', text })) setText('');
  };
  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        if (!busy) void send();
      }}
    >
      <MessageBox value={text} onChange={setText} testId="play-say" placeholder="Say something to the agent (without naming your intent outright)" />
      <button className="btn primary" type="submit" disabled={busy} data-testid="play-send">
        Send
      </button>
      <button
        className="btn danger"
        type="button"
        disabled={busy}
        onClick={() => void hangUp()}
        title="Ends the call without storing it: only a call the agent ends (or that reaches its turn limit) is judged and stored."
        data-testid="play-hang-up"
      >
        Hang up
      </button>
    </form>
  );
}

function AgentComposer({ v }: { v: PlayView }) {
  const setup = usePlayStore(selectSetup);
  const busy = usePlayStore(selectBusy);
  const [thinking, setThinking] = useState('');
  const [text, setText] = useState('');
  const [tool, setTool] = useState('lookup_account');
  const [values, setValues] = useState<Record<string, string>>({});
  const fields = setup?.tools.find((t) => t.name === tool)?.fields ?? [];
  const suggestions = useMemo(() => idSuggestions(v.turns, v.callerPhone), [v.turns, v.callerPhone]);
  // A move's thinking belongs to that move alone: cleared with the rest of the form once it is taken.
  const done = (ok: boolean) => {
    if (ok) {
      setThinking('');
      setText('');
      setValues({});
    }
  };
  return (
    <div className="agent-composer">
      <label className="wide">
        Thinking (optional; the DA wire format&apos;s &quot;thinking&quot; field, scored by r_format)
        <input value={thinking} onChange={(e) => setThinking(e.target.value)} data-testid="play-thinking" />
      </label>
      <form
        className="composer"
        onSubmit={(e) => {
          e.preventDefault();
          if (!busy) void act({ kind: 'speak', text, thinking }).then(done);
        }}
      >
        <MessageBox value={text} onChange={setText} testId="play-speak-text" placeholder="Speak to the customer" />
        <button className="btn" type="submit" disabled={busy} data-testid="play-speak">
          Speak
        </button>
        <button
          className="btn danger"
          type="button"
          disabled={busy}
          onClick={() => void act({ kind: 'end_call', text, thinking }).then(done)}
          data-testid="play-end-call"
        >
          End call
        </button>
      </form>
      <form
        className="tool-panel form-row"
        data-testid="play-tool-panel"
        onSubmit={(e) => {
          e.preventDefault();
          if (!busy) void act({ kind: 'tool_call', tool, args: toolArgs(fields, values), thinking }).then(done);
        }}
      >
        <label>
          Tool
          <select
            value={tool}
            onChange={(e) => {
              setTool(e.target.value);
              setValues({});
            }}
            data-testid="play-tool"
          >
            {(setup?.tools ?? []).map((t) => (
              <option key={t.name}>{t.name}</option>
            ))}
          </select>
        </label>
        {fields.map((f) => (
          <label key={f.name}>
            {f.name}
            {f.required ? ' *' : ''}
            {f.type === 'enum' || f.type === 'boolean' ? (
              <select value={values[f.name] ?? ''} onChange={(e) => setValues({ ...values, [f.name]: e.target.value })} data-testid={`play-arg-${f.name}`}>
                <option value="">{f.required ? 'choose…' : '(none)'}</option>
                {(f.type === 'boolean' ? ['true', 'false'] : (f.options ?? [])).map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </select>
            ) : (
              <input
                value={values[f.name] ?? ''}
                onChange={(e) => setValues({ ...values, [f.name]: e.target.value })}
                list={suggestions[f.name] ? `play-suggest-${f.name}` : undefined}
                inputMode={f.type === 'string' ? undefined : 'decimal'}
                data-testid={`play-arg-${f.name}`}
              />
            )}
            {suggestions[f.name] && (
              <datalist id={`play-suggest-${f.name}`}>
                {suggestions[f.name]!.map((s) => (
                  <option key={s} value={s} />
                ))}
              </datalist>
            )}
          </label>
        ))}
        <button className="btn primary" type="submit" disabled={busy} data-testid="play-call-tool">
          Call tool
        </button>
      </form>
    </div>
  );
}
