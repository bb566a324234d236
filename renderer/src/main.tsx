/** Startup: pick the transport (Electron's port or web mode's WebSocket), mirror the engine, render. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { setTransport } from './engine/client';
import { startMirror } from './engine/mirror';
import { startNavigation } from './nav/nav-store';
import { selectTransport } from './transport/select-transport';
import './styles.css';

const transport = selectTransport(window);
setTransport(transport);
startMirror(transport);
startNavigation();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
