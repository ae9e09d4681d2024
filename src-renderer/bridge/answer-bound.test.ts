import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src-shared/errors';
import { withAnswerBound } from './answer-bound';
import { useLink } from './link-state';

const BOUND = 60_000;

// A real server for the page's code to call, as plane-cut.test.ts takes a real process: the page's own
// code may not import Node's modules, its tests may ask Node for them.
interface ServerResponse {
  writeHead(status: number): ServerResponse;
  write(chunk: string): boolean;
  end(chunk?: string): void;
}
interface Server {
  listen(port: number, host: string, ready: () => void): void;
  address(): unknown;
  closeAllConnections(): void;
  close(done: () => void): void;
}
type CreateServer = (handle: (req: unknown, res: ServerResponse) => void) => Server;
const { createServer } = (
  globalThis as unknown as { process: { getBuiltinModule(id: string): { createServer: CreateServer } } }
).process.getBuiltinModule('node:http');

/** A real server on loopback that takes each request and hands it to the test, which may never answer. */
async function stuckServer(): Promise<{ url: string; next: () => Promise<ServerResponse>; server: Server }> {
  const queue: ServerResponse[] = [];
  let wake: (() => void) | null = null;
  const server = createServer((_req, res) => {
    queue.push(res);
    wake?.();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const next = async (): Promise<ServerResponse> => {
    while (queue.length === 0) await new Promise<void>((ok) => (wake = ok));
    return queue.shift() as ServerResponse;
  };
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, next, server };
}

describe('a request to the app that gets no answer', () => {
  let stuck: Awaited<ReturnType<typeof stuckServer>>;
  beforeEach(async () => {
    stuck = await stuckServer();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(async () => {
    vi.useRealTimers();
    useLink.getState().live();
    stuck.server.closeAllConnections();
    await new Promise<void>((ok) => stuck.server.close(() => ok()));
  });

  const call = (): Promise<Response> =>
    withAnswerBound((signal) => fetch(stuck.url, { signal }), BOUND, 'This request');

  it('ends at its bound with words saying so, instead of waiting for ever', async () => {
    const pending = call();
    const failed = pending.catch((e: unknown) => e);
    await stuck.next();
    vi.advanceTimersByTime(BOUND);
    const e = await failed;
    expect(e).toBeInstanceOf(AppError);
    expect(e).toMatchObject({
      code: 'network',
      message: 'This request got no answer from scan2mesh within 60 seconds.',
    });
    expect((e as AppError).action).toContain('scan2mesh web');
  });

  it('ends at once when the page stops hearing the app, even in the middle of an answer', async () => {
    const waiting = call().catch((e: unknown) => e);
    await stuck.next();
    const streaming = call();
    const res = await stuck.next();
    res.writeHead(200).write('part of a mesh');
    const body = (await streaming).arrayBuffer().catch((e: unknown) => e);
    useLink.getState().lost();
    for (const e of [await waiting, await body])
      expect(e).toMatchObject({
        code: 'network',
        message: 'This request got no answer: scan2mesh stopped answering.',
      });
  });

  it('lets an answer that has begun take longer than the bound', async () => {
    const streaming = call();
    const res = await stuck.next();
    res.writeHead(200).write('first half, ');
    const body = (await streaming).text();
    vi.advanceTimersByTime(3 * BOUND);
    res.end('second half');
    expect(await body).toBe('first half, second half');
  });
});
