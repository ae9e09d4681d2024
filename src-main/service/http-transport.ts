import http from 'node:http';
import https from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { AppError } from '../../src-shared/errors.js';
import { pipeFileBody, type FileBodySource } from './file-body.js';
import { canceledError, TransportError } from './transport-error.js';
import { requestTarget } from './url-policy.js';
import { trustSystemCertificatesOnce } from '../platform/system-trust.js';

export { canceledError, TransportError } from './transport-error.js';

/**
 * One HTTP exchange on Node's own http/https modules: bodies stream both ways (a 1 GiB upload never sits
 * in memory), Content-Length is ours to set (pre-signed storage refuses chunked uploads), and a failure
 * says whether the request had been sent completely, which decides if a POST may be repeated.
 */
interface SendOptions {
  method: string;
  url: URL;
  headers?: Record<string, string | number>;
  /** A small body held in memory (JSON). */
  body?: Buffer;
  /** A large body: a file, read afresh for each attempt (Content-Length is the caller's to set). */
  bodyFile?: FileBodySource;
  /** Keep-alive agents; false for a fresh connection (used where a stale pooled socket would be ambiguous). */
  agents: Agents | false;
  signal?: AbortSignal | undefined;
  /** Socket inactivity after which the exchange fails. */
  idleTimeoutMs: number;
  /**
   * Send `body` only after the server's "100 Continue" (RFC 9110 §10.1.1), or after this many ms
   * without one (a server that does not take part). A connection lost before then has carried no
   * body, so a call that must not be repeated once it may have been received can be repeated.
   */
  expectContinueMs?: number;
}

/** Kept connections, per kind. */
export interface Agents {
  http: http.Agent;
  https: https.Agent;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: IncomingMessage;
  /**
   * Whether the request's body had gone out whole when the answer came. False when the server
   * answered before reading it (an error instead of "100 Continue"): it cannot have acted on it.
   */
  bodySent?: boolean;
}

export function createAgents(): Agents {
  return {
    http: new http.Agent({ keepAlive: true, maxSockets: 16 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 16 }),
  };
}

/** Closes every kept connection. */
export function destroyAgents(agents: Agents): void {
  agents.http.destroy();
  agents.https.destroy();
}

export function send(opts: SendOptions): Promise<HttpResponse> {
  return sendStreaming(opts);
}

/** An exchange on the http modules, its answer's body a stream (downloads the socket path leaves). */
export function sendStreaming(opts: SendOptions): Promise<HttpResponse & { body: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(canceledError());
    const isHttps = opts.url.protocol === 'https:';
    if (isHttps) trustSystemCertificatesOnce();
    const agent = opts.agents === false ? false : isHttps ? opts.agents.https : opts.agents.http;
    const headers: Record<string, string | number> = { ...opts.headers };
    if (opts.body) headers['Content-Length'] = opts.body.length;
    const expectContinue = opts.expectContinueMs !== undefined && opts.body !== undefined;
    if (expectContinue) headers.Expect = '100-continue';
    const req = (isHttps ? https : http).request(opts.url, {
      method: opts.method,
      headers,
      agent,
      path: requestTarget(opts.url),
    });
    let sent = false;
    let settled = false;
    let source: { stop(): void } | undefined;
    let continueTimer: NodeJS.Timeout | undefined;

    const onAbort = (): void => {
      req.destroy(canceledError());
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const cleanup = (): void => {
      clearTimeout(continueTimer);
      opts.signal?.removeEventListener('abort', onAbort);
    };

    req.setTimeout(opts.idleTimeoutMs, () => {
      req.destroy(
        new TransportError(`no data for ${Math.round(opts.idleTimeoutMs / 1000)} s`, sent, 'ETIMEDOUT'),
      );
    });
    req.on('finish', () => {
      sent = true;
    });
    req.on('response', (res) => {
      settled = true;
      clearTimeout(continueTimer);
      // The server may answer (403, 5xx) before it has read the whole upload: stop reading the file.
      if (source && !sent) source.stop();
      // The request can never complete now (a body cut short, or one never sent after an answer that
      // came instead of "100 Continue"): drop its connection once the answer has been read.
      if ((source || expectContinue) && !sent) res.on('end', () => req.destroy());
      res.on('close', cleanup);
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: res, bodySent: sent });
    });
    req.on('error', (err: Error & { code?: string }) => {
      if (settled) return; // surfaces on the response body instead
      settled = true;
      cleanup();
      source?.stop();
      if (err instanceof AppError) return reject(err);
      if (err instanceof TransportError) return reject(err);
      // The library's own text (an errno, a TLS alert) stays in `cause` for the log; the code says what happened.
      reject(new TransportError('the connection was lost or refused', sent, err.code, { cause: err }));
    });

    if (opts.bodyFile) {
      source = pipeFileBody(opts.bodyFile, req);
    } else if (expectContinue) {
      let bodyGone = false;
      const sendBody = (): void => {
        if (bodyGone || settled) return;
        bodyGone = true;
        clearTimeout(continueTimer);
        req.end(opts.body);
      };
      req.on('continue', sendBody);
      continueTimer = setTimeout(sendBody, opts.expectContinueMs);
      req.flushHeaders();
    } else {
      req.end(opts.body);
    }
  });
}

/**
 * Reads a small body whole, decoded when it came gzip-, deflate- or br-coded (the calls ask for none,
 * Accept-Encoding: identity, but HTTP lets a server code its answer anyway: a review's gzipped JSON
 * was "malformed", and a job the service had made was reported as may-exist). A body cut short is a
 * TransportError (sent: the request had gone). With listeners rather than the stream's async
 * iterator, which costs a promise and more per chunk.
 */
export async function readBody(res: HttpResponse, maxBytes = 4 * 1024 * 1024): Promise<Buffer> {
  const raw = await readRawBody(res, maxBytes);
  const coding = contentCoding(res.headers);
  return coding ? decodeSmall(raw, coding, maxBytes) : raw;
}

function readRawBody(res: HttpResponse, maxBytes: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const body = res.body as IncomingMessage;
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const settle = (e: Error | undefined): void => {
      if (settled) return;
      settled = true;
      if (e) reject(e);
      else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    };
    // 'close' follows every 'end': the error (and its stack trace) is made only when it is the news.
    const cutOff = (): void => {
      if (!settled) settle(new TransportError('the answer was cut off', true, 'ECONNRESET'));
    };
    body.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        settle(new TransportError(`answer larger than ${maxBytes} bytes`, true, 'ETOOBIG'));
        body.destroy();
      } else chunks.push(chunk);
    });
    body.once('end', () => (body.complete ? settle(undefined) : cutOff()));
    body.once('error', (e: Error & { code?: string }) =>
      settle(
        e instanceof TransportError || e instanceof AppError
          ? e
          : new TransportError('the answer was cut off', true, e.code, { cause: e }),
      ),
    );
    // Torn down without an end or an error of its own.
    body.once('close', cutOff);
  });
}

/** A small coded body decoded, within `maxBytes`; a coding not known or bytes that do not decode: a cut-off answer. */
function decodeSmall(raw: Buffer, coding: string, maxBytes: number): Buffer {
  const opts = { maxOutputLength: maxBytes };
  try {
    if (coding === 'gzip' || coding === 'x-gzip') return gunzipSync(raw, opts);
    if (coding === 'deflate') return inflateSync(raw, opts);
    if (coding === 'br') return brotliDecompressSync(raw, opts);
  } catch (e) {
    throw new TransportError(`the ${coding}-coded answer did not decode`, true, 'EBADCODING', { cause: e });
  }
  throw new TransportError(
    `the answer came coded as "${coding}", which scan2mesh cannot decode`,
    true,
    'EBADCODING',
  );
}

/**
 * The content coding of an answer, or undefined for the file's own bytes. The request asks
 * for none (Accept-Encoding: identity), but storage serves an object with the coding it was stored
 * with (S3's Content-Encoding metadata) whatever the request asks: a review's gzipped STL was kept as
 * it came and refused as "gzip-compressed data, not an STL mesh", six times.
 */
export function contentCoding(headers: IncomingHttpHeaders): string | undefined {
  const codings = (headers['content-encoding'] ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  return codings.length > 0 ? codings.join(', ') : undefined;
}

/** Lets the socket go back to the pool without keeping the body. */
export function discard(res: HttpResponse): void {
  res.body.on('error', () => {});
  res.body.resume();
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(headers: IncomingHttpHeaders, now = Date.now()): number | undefined {
  const raw = headers['retry-after'];
  if (typeof raw !== 'string' || !raw.trim()) return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
