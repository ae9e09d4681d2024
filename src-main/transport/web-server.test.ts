import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWebServer, type RunningWebServer } from './web-server.js';
import { testCore } from '../app/core.test-support.js';
import { raw } from './web-request.test-support.js';

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

  it('listens on loopback only and serves the page with the CSP once the token is presented', async () => {
    const s = await start();
    expect(s.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const host = `127.0.0.1:${s.port}`;
    expect((await raw(s.port, '/', { headers: { Host: host } })).status).toBe(401);
    const first = await raw(s.port, `/?token=${s.token}`, { headers: { Host: host } });
    expect(first.status).toBe(303);
    const cookie = String((first.headers['set-cookie'] as string[])[0]).split(';')[0] as string;
    expect(first.headers['set-cookie']?.toString()).toMatch(/HttpOnly; SameSite=Strict/);
    const page = await raw(s.port, '/', { headers: { Host: host, Cookie: cookie } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>scan2mesh</title>');
    expect(String(page.headers['content-security-policy'])).toContain("default-src 'self'");
  });

  it('refuses foreign Host (DNS rebinding) and foreign Origin, and a POST without Origin', async () => {
    const s = await start();
    const auth = { 'X-Scan2mesh-Token': s.token };
    expect((await raw(s.port, '/', { headers: { ...auth, Host: 'attacker.example' } })).status).toBe(403);
    const body = '{}';
    const post = (headers: Record<string, string>) =>
      raw(s.port, '/api/invoke/profiles.list', {
        method: 'POST',
        body,
        headers: { Host: `127.0.0.1:${s.port}`, 'Content-Type': 'application/json', ...headers },
      });
    expect((await post({ ...auth, Origin: 'http://attacker.example' })).status).toBe(403);
    const cookieOnly = { Cookie: `scan2mesh_session=${s.token}` };
    expect((await post(cookieOnly)).status).toBe(403);
    const ok = await post({ ...cookieOnly, Origin: s.origin });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ ok: true, value: { profiles: [{ id: 'local-engine' }] } });
  });

  it('stages dropped files inside their drop folder and refuses escapes', async () => {
    const s = await start();
    const headers = { Host: `127.0.0.1:${s.port}`, 'X-Scan2mesh-Token': s.token, Origin: s.origin };
    const drop = '0b7c6f1e-7f0e-4c53-9a55-2f7d3f1b9a10';
    const ok = await raw(s.port, `/api/stage?drop=${drop}&path=${encodeURIComponent('series/I10')}`, {
      method: 'POST',
      headers,
      body: 'DICM-bytes',
    });
    expect(ok.status).toBe(200);
    // The page learns a grant for the dropped folder, never a path on this computer.
    const { grant } = JSON.parse(ok.body) as { grant: { id: string; name: string } };
    expect(grant).toEqual({ id: expect.stringMatching(/^[\w-]{16,64}$/), name: 'series' });
    expect(ok.body).not.toContain(stagingDir);
    expect(readFileSync(join(stagingDir, drop, 'series', 'I10'), 'utf8')).toBe('DICM-bytes');
    // '..' segments are dropped, never followed.
    const sneaky = await raw(s.port, `/api/stage?drop=${drop}&path=${encodeURIComponent('../../etc/x')}`, {
      method: 'POST',
      headers,
      body: 'x',
    });
    expect(sneaky.status).toBe(200);
    expect(readFileSync(join(stagingDir, drop, 'etc', 'x'), 'utf8')).toBe('x');
    expect(
      (await raw(s.port, `/api/stage?drop=not-a-uuid&path=a`, { method: 'POST', headers, body: 'x' })).status,
    ).toBe(400);
  });

  it('refuses path traversal for static files', async () => {
    const s = await start();
    const r = await raw(s.port, '/%2e%2e/%2e%2e/etc/passwd', {
      headers: { Host: `127.0.0.1:${s.port}`, 'X-Scan2mesh-Token': s.token },
    });
    expect(r.status).toBe(404);
  });
});
