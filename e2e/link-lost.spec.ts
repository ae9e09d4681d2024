import { test, expect } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { startWebServerProcess } from './launch-app';

// A review: killed mid-batch, web mode left its open tab showing "15 running" and a time left, with
// no word; started again (a new token), the tab stayed as it was. The page now says both.

const killed = (child: ChildProcess): Promise<void> =>
  new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGKILL');
  });

test('the page says when web mode stops answering, and when it came back with a new session', async ({
  browser,
}) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'scan2mesh-e2e-'));
  const first = await startWebServerProcess(dataDir);
  const port = new URL(first.origin).port;
  const context = await browser.newContext();
  const page = await context.newPage();
  let second: ChildProcess | undefined;
  try {
    await page.goto(first.url);
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    const banner = page.getByTestId('link-banner');
    await expect(banner).toHaveCount(0);

    await killed(first.child);
    await expect(banner).toContainText('scan2mesh has not answered since');
    await expect(banner).toContainText('scan2mesh web');

    // Started again on the same port: the page's token is not the new one.
    second = (await startWebServerProcess(dataDir, {}, ['--port', port])).child;
    await expect(banner).toContainText('This page lost its session with scan2mesh', { timeout: 15_000 });
    await expect(banner).toContainText('your jobs are kept');
  } finally {
    await context.close();
    if (second) await killed(second);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
