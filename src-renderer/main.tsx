import { startTransition } from 'react';
import { createRoot } from 'react-dom/client';
// First of the app's own modules: it takes web mode's session token out of the address bar.
import { webSessionMessage, webSessionProblem } from './bridge/web-session';
// The base first (tokens and reset), then the shared controls and the window's layout, in this
// order; each feature's own stylesheet (imported by its component) builds on them.
import './styles/app.css';
import './common/controls.css';
import './shell/layout.css';
import './common/notes.css';
import './common/toggles.css';

// A file dropped where no drop zone takes it must not make the window open that file instead of the app.
for (const type of ['dragover', 'drop'] as const) window.addEventListener(type, (e) => e.preventDefault());

/**
 * The app's code is a dynamic import so that the browser evaluates it in a task of its own: imported
 * statically, React DOM and the app were one module graph, evaluated in one task of over 100 ms on a
 * slow machine, during which the window could neither paint nor take input. The first render is a
 * transition, which React renders in slices of a few milliseconds instead of in one task.
 */
async function boot(root: HTMLElement): Promise<void> {
  const { renderApp } = await import('./shell/render-app');
  const reactRoot = createRoot(root);
  startTransition(() => renderApp(reactRoot));
}

const root = document.getElementById('root') as HTMLElement;
const problem = webSessionProblem();
// Web mode without its session token: every call would be refused, so say what to do instead.
if (problem) root.textContent = webSessionMessage(problem);
else
  boot(root).catch((e: unknown) => {
    // Without its code the window would stay blank: say so, in words a user can act on.
    root.textContent = `scan2mesh could not start: ${e instanceof Error ? e.message : String(e)}. Restart the app.`;
    throw e;
  });
