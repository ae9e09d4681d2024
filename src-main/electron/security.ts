import { app, session, type WebContents } from 'electron';

export const APP_SCHEME = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://scan2mesh`;

/** True for our own page's main frame; IPC from anything else (an injected frame, a stray page) is dropped. */
export function isTrustedSender(
  frame: { url: string; parent: unknown } | null,
  owner: WebContents | null,
): boolean {
  if (!frame || frame.parent !== null) return false;
  if (!owner || owner.isDestroyed()) return false;
  try {
    // Not URL.origin: for a scheme it does not know (app:) the WHATWG URL of the main process gives 'null'.
    const url = new URL(frame.url);
    return `${url.protocol}//${url.host}` === APP_ORIGIN;
  } catch {
    return false;
  }
}

/**
 * Electron's security checklist, applied once for the whole app: no navigation, no new windows, no
 * webviews, and every permission request denied (the app needs none of them).
 */
export function hardenApp(): void {
  app.enableSandbox();
  app.on('web-contents-created', (_e, contents) => {
    contents.on('will-navigate', (event) => event.preventDefault());
    contents.on('will-redirect', (event) => event.preventDefault());
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });
  app.whenReady().then(() => {
    session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
    session.defaultSession.setPermissionCheckHandler(() => false);
    // Nothing in the app loads remote content; refuse any request that is not our own scheme or devtools.
    session.defaultSession.webRequest.onBeforeRequest((details, callback) => {
      const allowed = details.url.startsWith(`${APP_ORIGIN}/`) || details.url.startsWith('devtools://');
      callback({ cancel: !allowed });
    });
  });
}
