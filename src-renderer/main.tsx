import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
// The base first (tokens and reset), then the shared controls and the window's layout, in this
// order; each feature's own stylesheet (imported by its component) builds on them.
import './styles/app.css';
import './common/controls.css';
import './shell/layout.css';
import './common/notes.css';
import './common/toggles.css';
import { App } from './shell/App';

// A file dropped where no drop zone takes it must not make the window open that file instead of the app.
for (const type of ['dragover', 'drop'] as const) window.addEventListener(type, (e) => e.preventDefault());

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
