import { test as base, expect, request } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWebServerProcess } from './launch-app';

// Web mode's guard, checked from outside the page with real HTTP requests.
const test = base.extend<{ server: { url: string; origin: string } }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright requires the fixtures argument to be destructured
  server: async ({}, use) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'scan2mesh-e2e-'));
    const { child, url, origin } = await startWebServerProcess(dataDir);
    await use({ url, origin });
    child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  },
});

/** The session token in an address `scan2mesh web` printed: it is in the fragment. */
const tokenOf = (url: string): string => new URLSearchParams(new URL(url).hash.slice(1)).get('token') ?? '';

test('the page loads without the token; every call to the app without it is refused', async ({ server }) => {
  const ctx = await request.newContext();
  // The page's own files hold no patient data; the app behind /api does.
  const page = await ctx.get(`${server.origin}/`);
  expect(page.status()).toBe(200);
  expect(page.headers()['content-security-policy']).toContain("default-src 'self'");
  const call = await ctx.post(`${server.origin}/api/invoke/profiles.list`, {
    data: {},
    headers: { Origin: server.origin },
  });
  expect(call.status()).toBe(401);
  expect(await call.text()).not.toContain('local-engine');
  await ctx.dispose();
});

test('a wrong token, a cookie, a foreign Host or a foreign Origin is refused; the right header works', async ({
  server,
}) => {
  const ctx = await request.newContext();
  const token = tokenOf(server.url);
  expect(token).toMatch(/^[\w-]{20,}$/);
  const call = (headers: Record<string, string>) =>
    ctx.post(`${server.origin}/api/invoke/profiles.list`, { data: {}, headers });
  expect((await call({ Origin: server.origin, 'X-Scan2mesh-Token': 'wrong' })).status()).toBe(401);
  expect((await call({ Origin: server.origin, Cookie: `scan2mesh_session=${token}` })).status()).toBe(401);
  const headers = { 'X-Scan2mesh-Token': token };
  expect(
    (await ctx.get(`${server.origin}/`, { headers: { ...headers, Host: 'evil.example:80' } })).status(),
  ).toBe(403);
  expect((await call({ ...headers, Origin: 'http://evil.example' })).status()).toBe(403);
  const ok = await call({ ...headers, Origin: server.origin });
  expect(ok.status()).toBe(200);
  expect((await ok.json()) as unknown).toMatchObject({ ok: true });
  // An address of the old form is not a credential, and no answer sets a cookie or redirects.
  for (const path of [`/?token=${token}`, `/.//evil.example/x?token=${token}`]) {
    const r = await ctx.get(`${server.origin}${path}`, { maxRedirects: 0 });
    expect(r.headers()['set-cookie']).toBeUndefined();
    expect(r.headers()['location']).toBeUndefined();
  }
  await ctx.dispose();
});

test('without its token, or at an address of the old form, the page says which address to open', async ({
  server,
  browser,
}) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${server.origin}/`);
  await expect(page.getByText(/Open the address that `scan2mesh web` printed/)).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
  await page.goto(`${server.origin}/?token=${tokenOf(server.url)}`);
  await expect(page.getByText(/from an older version of scan2mesh/)).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
  // The old token is taken out of the address bar all the same.
  expect(page.url()).toBe(`${server.origin}/`);
  expect(await context.cookies()).toEqual([]);
  await context.close();
});

test('the session token reaches no other server on 127.0.0.1; the app still works after a reload', async ({
  server,
  browser,
}) => {
  const token = tokenOf(server.url);
  // Another local server, as another developer tool or another user's service on this computer would be.
  const seen: { url: string; headers: Record<string, string | string[] | undefined> }[] = [];
  const other = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    const html =
      '<!doctype html><title>other</title><img src="/pixel.png" alt="">' +
      '<script src="/script.js"></script><p>another server</p>';
    if (req.url === '/script.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      res.end("fetch('/from-script', { credentials: 'include' });");
    } else {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(html);
    }
  });
  await new Promise<void>((ok) => other.listen(0, '127.0.0.1', ok));
  const otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;

  const context = await browser.newContext();
  const sent: { url: string; headers: Record<string, string> }[] = [];
  context.on('request', (r) => void r.allHeaders().then((headers) => sent.push({ url: r.url(), headers })));
  try {
    const page = await context.newPage();
    await page.goto(server.url);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav).toBeVisible();
    await nav.getByRole('button', { name: 'Connections' }).click();
    await expect(page.getByTestId('profile-item').first()).toContainText('Local engine (this computer)');
    // The token is out of the address bar (and so out of the tab's history).
    expect(page.url()).toBe(`${server.origin}/`);

    // Leave the app for the other server: by a navigation from the app's page (Referer), in the same
    // tab, and in a second tab opened afterwards.
    await page.evaluate((to) => {
      // Runs in the page; the e2e project is compiled without the DOM library, hence the local type.
      (globalThis as unknown as { location: { href: string } }).location.href = to;
    }, `${otherOrigin}/from-app`);
    await expect(page.getByText('another server')).toBeVisible();
    const second = await context.newPage();
    await second.goto(`${otherOrigin}/second-tab`);
    await expect(second.getByText('another server')).toBeVisible();
    await expect.poll(() => seen.filter((r) => r.url === '/from-script').length).toBe(2);

    // Back to the app in the first tab, then a reload: the token kept in sessionStorage still works.
    await page.goto(`${server.origin}/`);
    await page.reload();
    await expect(nav).toBeVisible();
    await nav.getByRole('button', { name: 'Connections' }).click();
    await expect(page.getByTestId('profile-item').first()).toContainText('Local engine (this computer)');
  } finally {
    await context.close();
    await new Promise<void>((ok) => other.close(() => ok()));
  }

  expect(seen.length).toBeGreaterThanOrEqual(8);
  for (const r of seen) expect(JSON.stringify(r), 'a request the other server received').not.toContain(token);
  expect(seen.every((r) => r.headers.cookie === undefined)).toBe(true);
  // On the app's own requests the token is only ever the header: never in an address, a cookie or a Referer.
  const calls = sent.filter((r) => r.url.startsWith(`${server.origin}/api/`));
  expect(calls.map((r) => new URL(r.url).pathname)).toContain('/api/events');
  for (const r of calls) expect(r.headers['x-scan2mesh-token']).toBe(token);
  for (const r of sent) {
    const { 'x-scan2mesh-token': _header, ...rest } = r.headers;
    // Playwright shows the address with its fragment, which never leaves the browser: it is left out.
    const url = r.url.split('#')[0];
    expect(JSON.stringify({ url, rest }), 'a request the browser sent').not.toContain(token);
  }
});
