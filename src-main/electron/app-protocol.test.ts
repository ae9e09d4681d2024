import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from '../transport/security-headers.js';
import type { FileGrants } from '../app/file-grants.js';

// Plain objects stand in for Electron's protocol and net modules.
type Handle = (request: Request) => Promise<Response>;
const fake = vi.hoisted(() => ({
  privileged: [] as unknown[],
  handler: undefined as undefined | ((request: Request) => Promise<Response>),
  fetched: [] as string[],
}));
vi.mock('electron', () => ({
  protocol: {
    registerSchemesAsPrivileged: (schemes: unknown[]) => fake.privileged.push(...schemes),
    handle: (_scheme: string, h: Handle) => (fake.handler = h),
  },
  net: {
    fetch: async (url: string) => {
      fake.fetched.push(url);
      return new Response('<!doctype html>', { status: 200, headers: { 'Content-Type': 'text/html' } });
    },
  },
}));

const { registerAppScheme, serveRenderer } = await import('./app-protocol.js');
const { APP_ORIGIN, APP_SCHEME } = await import('./security.js');

const root = join('/', 'opt', 'scan2mesh', 'dist', 'renderer');
const grantId = '0123456789abcdef0123';
const meshPath = join('/', 'home', 'u', 'scan2mesh', 'mandible.stl');
const grants = { resolve: (id: string) => (id === grantId ? meshPath : null) } as unknown as FileGrants;
serveRenderer(root, grants);
const get = (path: string): Promise<Response> => fake.handler!(new Request(`${APP_ORIGIN}${path}`));

describe('the app:// scheme', () => {
  it('is a secure standard scheme that does not bypass the CSP', () => {
    registerAppScheme();
    expect(fake.privileged).toEqual([
      { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
    ]);
  });

  it('serves the renderer with the CSP and the other security headers of web mode', async () => {
    fake.fetched.length = 0;
    const r = await get('/');
    expect(fake.fetched).toEqual([pathToFileURL(join(root, 'index.html')).toString()]);
    expect(r.headers.get('Content-Security-Policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/'unsafe-eval'|script-src[^;]*'unsafe-inline'/);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(r.headers.get(name)).toBe(value);
  });

  it('never reads outside the renderer folder, however the path is encoded', async () => {
    const inside = pathToFileURL(root).toString() + '/';
    for (const path of [
      '/..%2f..%2f..%2fetc%2fpasswd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/assets/..%2f..%2f..%2fmain/cli.cjs',
      '/..%5c..%5cmain%5ccli.cjs',
    ]) {
      fake.fetched.length = 0;
      const r = await get(path);
      if (fake.fetched.length === 0) expect(r.status, path).toBe(404);
      for (const url of fake.fetched) expect(url.startsWith(inside), `${path} -> ${url}`).toBe(true);
    }
    fake.fetched.length = 0;
    expect((await get('/..%2f..%2fmain%2fcli.cjs')).status).toBe(404);
    expect(fake.fetched).toEqual([]);
    expect((await get('/assets/%E0%A4%A.js')).status).toBe(400);
    expect((await get('/%')).status).toBe(400);
    expect(fake.fetched).toEqual([]);
  });

  it('serves granted meshes by id only', async () => {
    fake.fetched.length = 0;
    const mesh = await get(`/files/${grantId}`);
    expect(mesh.status).toBe(200);
    expect(fake.fetched).toEqual([pathToFileURL(meshPath).toString()]);
    // Bytes, never a page: whatever the file holds, it is not sniffed or run (the net module guessed text/html here).
    expect(mesh.headers.get('content-type')).toBe('application/octet-stream');
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) expect(mesh.headers.get(k), k).toBe(v);
    expect((await get('/files/ffffffffffffffffffff')).status).toBe(404);
    expect(fake.fetched).toHaveLength(1);
  });
});
