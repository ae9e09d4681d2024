import { request } from 'node:http';
import type { RunningWebServer } from './web-server.js';

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
