import { net, protocol } from 'electron';
import { join, normalize, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { APP_ORIGIN, APP_SCHEME } from './security.js';
import { SECURITY_HEADERS } from '../transport/security-headers.js';
import type { FileGrants } from '../app/file-grants.js';

/** Must run before the app is ready: our scheme behaves like https (secure origin, fetch, workers). */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/** Where the window fetches a file the core granted to it (a finished mesh): see serveRenderer. */
export const appFileUrl = (grantId: string): string => `${APP_ORIGIN}/files/${grantId}`;

/**
 * Serves the built renderer from app://scan2mesh/ with the same CSP and headers as web mode, and the
 * files the core granted to the renderer (finished meshes) under /files/ID.
 */
export function serveRenderer(rendererDir: string, grants: Pick<FileGrants, 'resolve'>): void {
  const root = normalize(rendererDir);
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    const granted = /^\/files\/([\w-]{16,64})$/.exec(url.pathname);
    if (granted) {
      const path = grants.resolve(granted[1] as string);
      if (!path) return new Response('Not found', { status: 404 });
      // Bytes for the viewer to parse, never a page or script to run: typed as such, with the same
      // headers as every other answer (web mode sends these granted files the same way).
      return withHeaders(await net.fetch(pathToFileURL(path).toString()), {
        'Content-Type': 'application/octet-stream',
      });
    }
    let rel: string;
    try {
      rel = decodeURIComponent(url.pathname);
    } catch {
      // A malformed escape (a lone %) names no file of ours: answered, not thrown into Electron.
      return new Response('Bad request', { status: 400 });
    }
    if (rel === '/' || rel === '') rel = '/index.html';
    const file = normalize(join(root, rel));
    if (!file.startsWith(root + sep)) return new Response('Not found', { status: 404 });
    return withHeaders(await net.fetch(pathToFileURL(file).toString()));
  });
}

function withHeaders(upstream: Response, extra: Record<string, string> = {}): Response {
  const headers = new Headers(upstream.headers);
  for (const [k, v] of Object.entries({ ...SECURITY_HEADERS, ...extra })) headers.set(k, v);
  return new Response(upstream.body, { status: upstream.status, headers });
}
