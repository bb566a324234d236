/** The lab's frame: navigation, the engine's status, and the current screen. */
import { useEffect } from 'react';
import { ArenaScreen } from './features/arena/ArenaScreen';
import { AnnotateScreen } from './features/labels/AnnotateScreen';
import { JudgeAuditScreen } from './features/labels/JudgeAuditScreen';
import { ModelsScreen } from './features/lab-models/ModelsScreen';
import { DashboardScreen } from './features/dashboard/DashboardScreen';
import { EvaluationScreen } from './features/evaluation/EvaluationScreen';
import { ExperimentsScreen } from './features/experiments/ExperimentsScreen';
import { ExportScreen } from './features/export/ExportScreen';
import { PlayScreen } from './features/play/PlayScreen';
import { StudiesScreen } from './features/studies/StudiesScreen';
import { TranscriptsScreen } from './features/transcripts/TranscriptsScreen';
import { loadEngineInfo, selectConnection, selectConnectionDetail, selectInfo, selectInfoError, useEngineStore } from './engine/engine-store';
import { navigate, selectScreen, useNavStore } from './nav/nav-store';
import type { Screen } from './nav/route';

const NAV: { screen: Screen; label: string; hint: string }[] = [
  { screen: 'experiments', label: 'Experiments', hint: 'presets, config, runs' },
  { screen: 'studies', label: 'Studies', hint: 'seeds × arms, intervals' },
  { screen: 'runs', label: 'Run dashboard', hint: 'live co-evolution' },
  { screen: 'arena', label: 'Arena', hint: 'play one match' },
  { screen: 'transcripts', label: 'Transcripts', hint: 'episodes turn by turn' },
  { screen: 'evaluation', label: 'Evaluation', hint: 'held-out metrics' },
  { screen: 'export', label: 'Export', hint: 'JSONL, CSV, charts' },
  { screen: 'play', label: 'Play', hint: 'sit in either seat' },
  { screen: 'annotate', label: 'Annotate', hint: 'label CA tactics' },
  { screen: 'audit', label: 'Judge audit', hint: 'check the judge' },
  { screen: 'models', label: 'Models', hint: 'LLM endpoints, GGUF files' },
];

export function App() {
  const screen = useNavStore(selectScreen);
  const info = useEngineStore(selectInfo);
  const infoError = useEngineStore(selectInfoError);
  const connection = useEngineStore(selectConnection);
  const detail = useEngineStore(selectConnectionDetail);
  useEffect(() => {
    void loadEngineInfo();
  }, []);
  return (
    <div className="app">
      <nav className="sidebar" aria-label="Screens">
        <div className="sidebar-inner">
          <div className="brand">
            <span className="logo" aria-hidden="true">
              ◐
            </span>{' '}
            Sparring
          </div>
          <ul>
            {NAV.map((n) => (
              <li key={n.screen}>
                <a
                  href={`#/${n.screen}`}
                  className={screen === n.screen ? 'active' : undefined}
                  aria-current={screen === n.screen ? 'page' : undefined}
                  data-testid={`nav-${n.screen}`}
                  onClick={(e) => {
                    e.preventDefault();
                    navigate(n.screen);
                  }}
                >
                  <span>{n.label}</span>
                  <small>{n.hint}</small>
                </a>
              </li>
            ))}
          </ul>
          <div className="sidebar-foot">
            <div className={`conn ${connection}`} data-testid="connection">
              <span className="dot" /> {connection === 'open' ? 'engine connected' : connection === 'connecting' ? 'connecting…' : 'disconnected'}
            </div>
            {info && (
              <div className="lab-path" title={info.dbPath}>
                lab: {info.dbPath.split(/[\\/]/).slice(-2).join('/')}
              </div>
            )}
            {infoError && <div className="bad-text small">{infoError}</div>}
          </div>
        </div>
      </nav>
      <main className="main">
        {connection === 'closed' && (
          <div className="banner" role="alert">
            Lost the connection to the engine{detail ? ` — ${detail}` : ''}. Reconnecting…{' '}
            <button className="btn tiny" onClick={() => location.reload()}>
              Reload
            </button>
          </div>
        )}
        {screen === 'experiments' && <ExperimentsScreen />}
        {screen === 'studies' && <StudiesScreen />}
        {screen === 'runs' && <DashboardScreen />}
        {screen === 'arena' && <ArenaScreen />}
        {screen === 'transcripts' && <TranscriptsScreen />}
        {screen === 'evaluation' && <EvaluationScreen />}
        {screen === 'export' && <ExportScreen />}
        {screen === 'annotate' && <AnnotateScreen />}
        {screen === 'audit' && <JudgeAuditScreen />}
        {screen === 'play' && <PlayScreen />}
        {screen === 'models' && <ModelsScreen />}
      </main>
    </div>
  );
}
