// A page in a fresh Chromium, driven over its DevTools pipe with only the calls a measurement
// needs. Playwright's session enables the Runtime domain; with it on, V8 collected source positions
// while evaluating the first page's entry, re-parsing React DOM on the main thread
// (V8.CollectSourcePositions in a trace): a task of 108-149 ms that no user's window has, where the
// same evaluation without that domain stayed under 50 ms.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

interface Reply {
  id?: number;
  method?: string;
  sessionId?: string;
  result?: Record<string, unknown>;
  error?: { message: string };
}

export interface PipePage {
  /** Runs an expression in the page (awaiting a promise it returns) and gives its JSON value. */
  evaluate(expression: string): Promise<unknown>;
  /** Resolves at the next event of this name from the page's session. */
  event(method: string): Promise<void>;
  navigate(url: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts Chromium headless with `args`, a viewport of `width` x `height`, a profile of its own, and
 * `initScript` run in every new document before the page's own scripts.
 */
export async function openPipePage(
  executable: string,
  args: string[],
  initScript: string,
  width: number,
  height: number,
): Promise<PipePage> {
  const profile = mkdtempSync(join(tmpdir(), 'scan2mesh-cdp-'));
  const browser: ChildProcess = spawn(
    executable,
    [
      ...args,
      '--headless',
      '--remote-debugging-pipe',
      `--user-data-dir=${profile}`,
      `--window-size=${width},${height}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
  );
  const toBrowser = browser.stdio[3] as Writable;
  const fromBrowser = browser.stdio[4] as Readable;
  const calls = new Map<number, (r: Reply) => void>();
  const waiters: { method: string; resolve: () => void }[] = [];
  let nextId = 0;
  let pending = '';
  fromBrowser.setEncoding('utf8');
  fromBrowser.on('data', (text: string) => {
    // Messages are JSON, each ended by a NUL.
    pending += text;
    for (let end = pending.indexOf('\0'); end >= 0; end = pending.indexOf('\0')) {
      const message = JSON.parse(pending.slice(0, end)) as Reply;
      pending = pending.slice(end + 1);
      if (message.id !== undefined) calls.get(message.id)?.(message);
      else
        for (const w of waiters.filter((x) => x.method === message.method)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
    }
  });
  const exited = new Promise<never>((_ok, fail) =>
    browser.once('exit', (code) => fail(new Error(`Chromium exited (${code}) before the measurement ended`))),
  );
  exited.catch(() => undefined);
  const send = async (
    method: string,
    params: object,
    sessionId?: string,
  ): Promise<Record<string, unknown>> => {
    const id = ++nextId;
    const reply = new Promise<Reply>((ok) => calls.set(id, ok));
    toBrowser.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    const r = await Promise.race([reply, exited]);
    calls.delete(id);
    if (r.error) throw new Error(`${method}: ${r.error.message}`);
    return r.result ?? {};
  };

  const { targetInfos } = (await send('Target.getTargets', {})) as {
    targetInfos: { targetId: string; type: string }[];
  };
  const target = targetInfos.find((t) => t.type === 'page');
  if (!target) throw new Error('Chromium opened no page');
  const { sessionId } = (await send('Target.attachToTarget', {
    targetId: target.targetId,
    flatten: true,
  })) as {
    sessionId: string;
  };
  // The Page domain is needed for the init script and its load event; nothing else is enabled.
  await send('Page.enable', {}, sessionId);
  await send('Page.addScriptToEvaluateOnNewDocument', { source: initScript }, sessionId);

  return {
    async evaluate(expression) {
      const r = (await send(
        'Runtime.evaluate',
        { expression, awaitPromise: true, returnByValue: true },
        sessionId,
      )) as {
        result: { value?: unknown };
        exceptionDetails?: { text: string };
      };
      if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.text}`);
      return r.result.value;
    },
    event: (method) => new Promise<void>((resolve) => waiters.push({ method, resolve })),
    async navigate(url) {
      await send('Page.navigate', { url }, sessionId);
    },
    async close() {
      if (browser.exitCode === null && browser.signalCode === null) {
        const gone = new Promise((ok) => browser.once('exit', ok));
        // Closed through the pipe, Chromium ends its helper processes before it exits itself.
        await send('Browser.close', {}).catch(() => browser.kill('SIGTERM'));
        await gone;
      }
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}
