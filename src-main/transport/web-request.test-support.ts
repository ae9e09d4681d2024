import { request } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { startWebServer, type RunningWebServer } from './web-server.js';
import type { StageLimits } from './web-stage.js';
import { testCore } from '../app/core.test-support.js';
import { stageBatchHead } from '../../src-shared/stage-batch.js';

export interface RawResponse {
  status: number;
  body: string;
  headers: Record<string, unknown>;
}

/**
 * One HTTP request to a web-mode server on loopback, as a browser or another local program would send
 * it. A body given as chunks goes out without a Content-Length (chunked), as a streamed upload does.
 */
export function raw(
  port: number,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer; chunks?: Buffer[] } = {},
): Promise<RawResponse> {
  return new Promise((ok, fail) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: opts.headers },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => ok({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    // The server may answer (413) and close before the whole body is sent; the answer is what counts.
    req.on('error', (e) => (req.writableFinished ? undefined : fail(e)));
    for (const c of opts.chunks ?? []) req.write(c);
    req.end(opts.body);
  });
}

/** Headers of the app's own page: Host, Origin and the session token. */
export function pageHeaders(s: RunningWebServer): Record<string, string> {
  return { Host: `127.0.0.1:${s.port}`, Origin: s.origin, 'X-Scan2mesh-Token': s.token };
}

/** A contract call over HTTP, as the web bridge makes it; returns the envelope and the raw answer text. */
export async function invoke(
  s: RunningWebServer,
  channel: string,
  payload: unknown,
): Promise<{
  status: number;
  text: string;
  envelope: { ok: boolean; value?: unknown; error?: Record<string, unknown> };
}> {
  const r = await raw(s.port, `/api/invoke/${channel}`, {
    method: 'POST',
    headers: { ...pageHeaders(s), 'Content-Type': 'application/json' },
    body: JSON.stringify(payload),
  });
  return { status: r.status, text: r.body, envelope: r.status === 200 ? JSON.parse(r.body) : { ok: false } };
}

/** One file of a staged batch; `size` says a length other than the body's (a malformed upload). */
export interface BatchFile {
  path: string;
  body: string | Buffer;
  size?: number;
}

/** A batch's body as the page sends it (src-shared/stage-batch.ts): the manifest line, then the files. */
export function stageBody(files: BatchFile[]): Buffer {
  const bodies = files.map((f) => Buffer.from(f.body));
  const head = stageBatchHead(files.map((f, k) => ({ path: f.path, size: f.size ?? bodies[k]!.length })));
  return Buffer.concat([Buffer.from(head), ...bodies]);
}

/** Stages `files` into `drop` as the page does; `chunked` sends the body without a length. */
export function stage(
  s: RunningWebServer,
  drop: string,
  files: BatchFile[],
  chunked = false,
): Promise<RawResponse> {
  const body = stageBody(files);
  return raw(s.port, `/api/stage?drop=${drop}`, {
    method: 'POST',
    headers: { ...pageHeaders(s), 'Content-Type': 'application/octet-stream' },
    ...(chunked ? { chunks: [body] } : { body }),
  });
}

/** The grants a staged batch was answered with, one per file. */
export const grantsOf = (r: RawResponse): { id: string; name: string }[] =>
  (JSON.parse(r.body) as { grants: { id: string; name: string }[] }).grants;

/**
 * Web-mode servers over a test core, each with a page and a stage folder of its own, closed after
 * each test. `stagingDir()` is the last one's stage folder.
 */
export function webServerPerTest(): {
  start(
    stageLimits?: StageLimits,
    stageFreeSpace?: (dir: string) => Promise<number>,
  ): Promise<RunningWebServer>;
  stagingDir(): string;
} {
  let server: RunningWebServer | undefined;
  let stagingDir = '';
  afterEach(async () => server?.close());
  return {
    async start(stageLimits, stageFreeSpace) {
      const dir = mkdtempSync(join(tmpdir(), 'renderer-'));
      writeFileSync(join(dir, 'index.html'), '<!doctype html><title>scan2mesh</title>');
      stagingDir = mkdtempSync(join(tmpdir(), 'stage-'));
      server = await startWebServer({
        core: testCore(),
        rendererDir: dir,
        stagingDir,
        ...(stageLimits ? { stageLimits } : {}),
        ...(stageFreeSpace ? { stageFreeSpace } : {}),
      });
      return server;
    },
    stagingDir: () => stagingDir,
  };
}
