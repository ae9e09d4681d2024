import { afterEach, describe, expect, it, vi } from 'vitest';
import { request } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWebServer, type RunningWebServer } from './web-server.js';
import { testCore } from '../app/core.test-support.js';
import { grantsOf, pageHeaders, raw, stage, stageBody } from './web-request.test-support.js';
import { HEARTBEAT_MS } from '../../src-shared/link-timing.js';

describe('web mode server', () => {
  let server: RunningWebServer | undefined;
  afterEach(async () => server?.close());

  let stagingDir = '';
  async function start(): Promise<RunningWebServer> {
    const dir = mkdtempSync(join(tmpdir(), 'renderer-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>scan2mesh</title>');
    stagingDir = mkdtempSync(join(tmpdir(), 'stage-'));
    server = await startWebServer({ core: testCore(), rendererDir: dir, stagingDir });
    return server;
  }

  it('listens on loopback only and serves the page (no patient data) with the CSP, without the token', async () => {
    const s = await start();
    expect(s.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The token is in the fragment, which a browser never sends to any server.
    expect(s.url).toBe(`${s.origin}/#token=${s.token}`);
    const page = await raw(s.port, '/', { headers: { Host: `127.0.0.1:${s.port}` } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>scan2mesh</title>');
    expect(String(page.headers['content-security-policy'])).toContain("default-src 'self'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
  });

  it('refuses foreign Host (DNS rebinding) and foreign Origin, even with the token', async () => {
    const s = await start();
    const auth = { 'X-Scan2mesh-Token': s.token };
    expect((await raw(s.port, '/', { headers: { ...auth, Host: 'attacker.example' } })).status).toBe(403);
    expect(
      (await raw(s.port, '/', { headers: { Host: `127.0.0.1:${s.port}`, Origin: 'null' } })).status,
    ).toBe(403);
    const post = (headers: Record<string, string>) =>
      raw(s.port, '/api/invoke/profiles.list', {
        method: 'POST',
        body: '{}',
        headers: { Host: `127.0.0.1:${s.port}`, 'Content-Type': 'application/json', ...headers },
      });
    expect((await post({ ...auth, Origin: 'http://attacker.example' })).status).toBe(403);
    expect((await post({ ...auth, Origin: 'http://127.0.0.1:1' })).status).toBe(403);
    expect((await post({ Origin: s.origin })).status).toBe(401);
    expect((await post({ Origin: s.origin, 'X-Scan2mesh-Token': `${s.token}x` })).status).toBe(401);
    const ok = await post({ ...auth, Origin: s.origin });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ ok: true, value: { profiles: [{ id: 'local-engine' }] } });
  });

  it('takes the token from the header only: a cookie or a ?token= opens nothing under /api', async () => {
    const s = await start();
    const host = { Host: `127.0.0.1:${s.port}`, Origin: s.origin };
    // What a browser would send on its own to any port of 127.0.0.1, had the token ever been a cookie.
    const cookie = { ...host, Cookie: `scan2mesh_session=${s.token}` };
    const refused = [
      raw(s.port, '/api/invoke/profiles.list', {
        method: 'POST',
        body: '{}',
        headers: { ...cookie, 'Content-Type': 'application/json' },
      }),
      raw(s.port, '/api/events', { headers: cookie }),
      raw(s.port, '/api/stage', { headers: cookie }),
      raw(s.port, '/api/file/0123456789abcdef0123', { headers: cookie }),
      raw(s.port, `/api/stage?token=${s.token}`, { headers: host }),
      raw(s.port, `/api/events?token=${s.token}`, { headers: host }),
    ];
    for (const r of await Promise.all(refused)) {
      expect(r.status).toBe(401);
      expect(r.body).not.toContain('local-engine');
    }
  });

  it('sets no cookie and redirects nowhere, an old ?token= address included', async () => {
    const s = await start();
    const host = { Host: `127.0.0.1:${s.port}` };
    const paths = [
      '/',
      `/?token=${s.token}`,
      '/?token=wrong',
      `/.//evil.example/x?token=${s.token}`,
      `//evil.example/x?token=${s.token}`,
      '//evil.example/x',
      `/%2F%2Fevil.example/x?token=${s.token}`,
      `/\\evil.example/x?token=${s.token}`,
      '/api/stage',
    ];
    const answers = await Promise.all([
      ...paths.map((p) => raw(s.port, p, { headers: host })),
      ...paths.map((p) => raw(s.port, p, { headers: { ...host, 'X-Scan2mesh-Token': s.token } })),
    ]);
    for (const r of answers) {
      expect(r.headers['set-cookie']).toBeUndefined();
      expect(r.headers.location).toBeUndefined();
      expect(r.status).not.toBe(303);
    }
    // The old address still shows the page (which says it is outdated), never a credential exchange.
    const old = await raw(s.port, `/?token=${s.token}`, { headers: host });
    expect(old.status).toBe(200);
    expect(old.body).toContain('<title>scan2mesh</title>');
  });

  it('stages dropped files inside their drop folder and refuses escapes', async () => {
    const s = await start();
    const headers = { Host: `127.0.0.1:${s.port}`, 'X-Scan2mesh-Token': s.token, Origin: s.origin };
    const drop = '0b7c6f1e-7f0e-4c53-9a55-2f7d3f1b9a10';
    const ok = await stage(s, drop, [{ path: 'series/I10', body: 'DICM-bytes' }]);
    expect(ok.status).toBe(200);
    // The page learns a grant for the dropped folder, never a path on this computer.
    expect(grantsOf(ok)).toEqual([{ id: expect.stringMatching(/^[\w-]{16,64}$/), name: 'series' }]);
    expect(ok.body).not.toContain(stagingDir);
    expect(readFileSync(join(stagingDir, drop, 'series', 'I10'), 'utf8')).toBe('DICM-bytes');
    // '..' segments are dropped, never followed.
    const sneaky = await stage(s, drop, [{ path: '../../etc/x', body: 'x' }]);
    expect(sneaky.status).toBe(200);
    expect(readFileSync(join(stagingDir, drop, 'etc', 'x'), 'utf8')).toBe('x');
    const notUuid = await raw(s.port, `/api/stage?drop=not-a-uuid`, {
      method: 'POST',
      headers,
      body: stageBody([{ path: 'a', body: 'x' }]),
    });
    expect(notUuid.status).toBe(400);
  });

  it('refuses path traversal for static files', async () => {
    const s = await start();
    const r = await raw(s.port, '/%2e%2e/%2e%2e/etc/passwd', {
      headers: { Host: `127.0.0.1:${s.port}`, 'X-Scan2mesh-Token': s.token },
    });
    expect(r.status).toBe(404);
  });

  it('says something on the event stream every heartbeat, even with nothing to report', async () => {
    // The page tells a hung app (socket open, nothing said) from a quiet one by this beat.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const s = await start();
      const chunks: string[] = [];
      let heard: (() => void) | null = null;
      const req = request({ host: '127.0.0.1', port: s.port, path: '/api/events', headers: pageHeaders(s) });
      req.on('response', (res) =>
        res.on('data', (c: Buffer) => {
          chunks.push(c.toString());
          heard?.();
        }),
      );
      req.end();
      const next = (): Promise<string> =>
        new Promise((ok) => {
          heard = () => ok(chunks.join(''));
          if (chunks.length > 0) ok(chunks.join(''));
        }).then((text) => {
          chunks.length = 0;
          return text as string;
        });
      expect(await next()).toBe(': connected\n\n');
      vi.advanceTimersByTime(HEARTBEAT_MS);
      expect(await next()).toMatch(/^: \w+\n\n$/);
      vi.advanceTimersByTime(HEARTBEAT_MS);
      expect(await next()).toMatch(/^: \w+\n\n$/);
      req.destroy();
    } finally {
      vi.useRealTimers();
    }
  });
});
