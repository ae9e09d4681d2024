import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { startWebServer, type RunningWebServer } from './web-server.js';
import { testCore } from '../app/test-support.js';

function raw(
  port: number,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((ok, fail) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: opts.headers },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => ok({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', fail);
    req.end(opts.body);
  });
}

describe('web mode server', () => {
  let server: RunningWebServer | undefined;
  afterEach(async () => server?.close());

  async function start(): Promise<RunningWebServer> {
    const dir = mkdtempSync(join(tmpdir(), 'renderer-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>scan2mesh</title>');
    server = await startWebServer({
      core: testCore(),
      rendererDir: dir,
      stagingDir: mkdtempSync(join(tmpdir(), 'stage-')),
    });
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
    const { path, root } = JSON.parse(ok.body) as { path: string; root: string };
    expect(readFileSync(path, 'utf8')).toBe('DICM-bytes');
    expect(root.endsWith(join(drop, 'series'))).toBe(true);
    // '..' segments are dropped, never followed.
    const sneaky = await raw(s.port, `/api/stage?drop=${drop}&path=${encodeURIComponent('../../etc/x')}`, {
      method: 'POST',
      headers,
      body: 'x',
    });
    expect(JSON.parse(sneaky.body).path).toContain(join(drop, 'etc', 'x'));
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
