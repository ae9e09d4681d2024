import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { _electron, type Browser, type Page } from '@playwright/test';

export const ROOT = resolve(import.meta.dirname, '..');
export const FIXTURES = resolve(ROOT, '..', 'shared', 'fixtures');

export interface LaunchedApp {
  mode: 'electron' | 'web';
  page: Page;
  /** Web mode only: the server's origin and the address with the session token. */
  origin?: string;
  url?: string;
  dataDir: string;
  close(): Promise<void>;
}

function electronBinary(): string | null {
  try {
    const p = createRequire(import.meta.url)('electron') as unknown;
    return typeof p === 'string' && existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

/** Starts `scan2mesh web` on a random port with its own data folder and waits for the address it prints. */
export async function startWebServerProcess(
  dataDir: string,
  env: NodeJS.ProcessEnv = {},
  args: string[] = [],
): Promise<{ child: ChildProcess; url: string; origin: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'main', 'cli.cjs'), 'web', ...args], {
    env: { ...process.env, SCAN2MESH_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`web mode did not start: ${out}`)), 20_000);
    const onData = (b: Buffer): void => {
      out += b.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1] as string);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
    child.once('exit', (code) => fail(new Error(`web mode exited with ${code}: ${out}`)));
  });
  return { child, url, origin: new URL(url).origin };
}

/**
 * The app as a user gets it: the Electron window where its runtime is installed, otherwise web mode
 * in Debian's Chromium (the same renderer, the same contract, over loopback).
 */
export async function launchApp(
  browser: Browser,
  opts: { env?: NodeJS.ProcessEnv } = {},
): Promise<LaunchedApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'scan2mesh-e2e-'));
  const binary = electronBinary();
  if (binary && process.env.SCAN2MESH_E2E_WEB !== '1') {
    const electronApp = await _electron.launch({
      executablePath: binary,
      args: [ROOT],
      env: { ...process.env, SCAN2MESH_DATA_DIR: dataDir, ...opts.env } as Record<string, string>,
    });
    const page = await electronApp.firstWindow();
    return {
      mode: 'electron',
      page,
      dataDir,
      async close() {
        await electronApp.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const { child, url, origin } = await startWebServerProcess(dataDir, opts.env);
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  await page.goto(url);
  return {
    mode: 'web',
    page,
    origin,
    url,
    dataDir,
    async close() {
      await context.close();
      child.kill('SIGTERM');
      // A server that stays up after SIGTERM is a bug (something it opened keeps it alive): say so
      // instead of letting the teardown hang until the test's timeout.
      const exited = await new Promise<boolean>((r) => {
        if (child.exitCode !== null || child.signalCode !== null) return r(true);
        const timer = setTimeout(() => r(false), 15_000);
        child.once('exit', () => {
          clearTimeout(timer);
          r(true);
        });
      });
      if (!exited) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      if (!exited) throw new Error('web mode did not exit within 15 s of SIGTERM');
    },
  };
}
