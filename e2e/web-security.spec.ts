import { test as base, expect, request } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
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

test('a request without the session token is refused', async ({ server }) => {
  const ctx = await request.newContext();
  const page = await ctx.get(`${server.origin}/`);
  expect(page.status()).toBe(401);
  const call = await ctx.post(`${server.origin}/api/invoke/profiles.list`, {
    data: {},
    headers: { Origin: server.origin },
  });
  expect(call.status()).toBe(401);
  expect(await call.text()).not.toContain('local-engine');
  await ctx.dispose();
});

test('a wrong token, a foreign Host or a foreign Origin is refused; the right token works', async ({
  server,
}) => {
  const ctx = await request.newContext();
  expect((await ctx.get(`${server.origin}/?token=wrong`)).status()).toBe(401);
  const token = new URL(server.url).searchParams.get('token') as string;
  const headers = { 'X-Scan2mesh-Token': token };
  expect(
    (await ctx.get(`${server.origin}/`, { headers: { ...headers, Host: 'evil.example:80' } })).status(),
  ).toBe(403);
  const foreign = await ctx.post(`${server.origin}/api/invoke/profiles.list`, {
    data: {},
    headers: { ...headers, Origin: 'http://evil.example' },
  });
  expect(foreign.status()).toBe(403);
  const ok = await ctx.post(`${server.origin}/api/invoke/profiles.list`, {
    data: {},
    headers: { ...headers, Origin: server.origin },
  });
  expect(ok.status()).toBe(200);
  expect((await ok.json()) as unknown).toMatchObject({ ok: true });
  await ctx.dispose();
});
