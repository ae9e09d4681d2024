import net from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { canceledError, TransportError } from './http-transport.js';
import type { FileBatcher } from './batched-file-writer.js';

/**
 * GET of a plain-http (so loopback: the local engine) address into a file over a bare socket whose
 * reads land in one reused buffer. Node's http module allocates a buffer per 64 KiB read and runs a
 * parser and events on each; on a busy machine that halves download throughput against curl, while
 * this path keeps up with it. It handles the one shape downloads have (status, headers, a body of
 * Content-Length bytes or up to the end of the connection); anything else (chunked bodies) is left
 * to the http module by throwing NotPlainBody before any of the body is taken.
 */
export class NotPlainBody extends Error {}

export interface RawGetResult {
  status: number;
  headers: IncomingHttpHeaders;
  /** Bytes of the body written to the file (2xx only). */
  bytes: number;
  /** The start of the body of an answer other than 2xx, for its error message. */
  errorBody?: string;
}

const HEAD_LIMIT = 64 * 1024;
const READ_BUFFER = 256 * 1024;
const CRLFCRLF = Buffer.from('\r\n\r\n');

export function rawGetToFile(
  url: URL,
  batcher: FileBatcher,
  opts: { signal?: AbortSignal | undefined; idleTimeoutMs: number; onBytes?: (total: number) => void },
): Promise<RawGetResult> {
  return new Promise<RawGetResult>((resolve, reject) => {
    if (url.protocol !== 'http:') return reject(new NotPlainBody('only plain http'));
    if (opts.signal?.aborted) return reject(canceledError());
    let sent = false;
    let settled = false;
    let head = Buffer.alloc(0);
    let answer: { status: number; headers: IncomingHttpHeaders; length: number | undefined } | undefined;
    let bytes = 0;
    const errorChunks: Buffer[] = [];

    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      fn();
    };
    const fail = (e: Error): void => finish(() => reject(e));
    const onAbort = (): void => fail(canceledError());

    /** The body is complete: flush the file and answer. */
    const complete = (): void => {
      if (!answer)
        return fail(new TransportError('the connection closed before an answer', sent, 'ECONNRESET'));
      const a = answer;
      if (a.status < 200 || a.status >= 300) {
        const errorBody = Buffer.concat(errorChunks).toString('utf8');
        return finish(() => resolve({ status: a.status, headers: a.headers, bytes: 0, errorBody }));
      }
      if (a.length !== undefined && bytes < a.length)
        return fail(
          new TransportError(`the download ended after ${bytes} of ${a.length} bytes`, true, 'ECONNRESET'),
        );
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      batcher.finish().then(() => resolve({ status: a.status, headers: a.headers, bytes }), reject);
    };

    /** Body bytes: false pauses the socket until the file has taken them. */
    const body = (buf: Buffer, start: number, end: number): boolean => {
      const a = answer as NonNullable<typeof answer>;
      if (a.length !== undefined) end = Math.min(end, start + (a.length - bytes));
      if (end <= start) return true;
      if (a.status < 200 || a.status >= 300) {
        if (errorChunks.reduce((n, c) => n + c.length, 0) < HEAD_LIMIT)
          errorChunks.push(Buffer.from(buf.subarray(start, end)));
        bytes += end - start;
      } else {
        bytes += end - start;
        opts.onBytes?.(bytes);
        const wait = batcher.add(buf, start, end);
        if (wait) {
          wait.then(
            () => {
              if (a.length !== undefined && bytes >= a.length) complete();
              else socket.resume();
            },
            (e: Error) => fail(e),
          );
          return false;
        }
      }
      if (a.length !== undefined && bytes >= a.length) {
        complete();
        return false;
      }
      return true;
    };

    const onRead = (n: number, buf: Buffer): boolean => {
      if (settled) return false;
      if (answer) return body(buf, 0, n);
      head = Buffer.concat([head, buf.subarray(0, n)]);
      const end = head.indexOf(CRLFCRLF);
      if (end < 0) {
        if (head.length > HEAD_LIMIT)
          fail(new TransportError('the answer has no end of headers', true, 'EPROTO'));
        return true;
      }
      try {
        answer = parseHead(head.subarray(0, end).toString('latin1'));
      } catch (e) {
        fail(e as Error);
        return false;
      }
      const rest = head.subarray(end + 4);
      head = Buffer.alloc(0);
      return rest.length > 0 ? body(rest, 0, rest.length) : answer.length === 0 ? (complete(), false) : true;
    };

    const socket = net.connect({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || 80),
      onread: { buffer: Buffer.allocUnsafe(READ_BUFFER), callback: onRead },
    });
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    socket.setTimeout(opts.idleTimeoutMs, () =>
      fail(new TransportError(`no data for ${Math.round(opts.idleTimeoutMs / 1000)} s`, sent, 'ETIMEDOUT')),
    );
    socket.on('connect', () => {
      const request =
        `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: */*\r\n` +
        'User-Agent: scan2mesh\r\nConnection: close\r\n\r\n';
      socket.write(request, () => {
        sent = true;
      });
    });
    socket.on('end', () => {
      if (!settled && answer && answer.length === undefined) complete();
      else if (!settled) fail(new TransportError('the answer was cut off', sent, 'ECONNRESET'));
    });
    socket.on('close', () => {
      if (!settled) fail(new TransportError('the connection closed', sent, 'ECONNRESET'));
    });
    socket.on('error', (e: Error & { code?: string }) => fail(new TransportError(e.message, sent, e.code)));
  });
}

function parseHead(text: string): {
  status: number;
  headers: IncomingHttpHeaders;
  length: number | undefined;
} {
  const [statusLine = '', ...lines] = text.split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!m) throw new TransportError(`not an HTTP answer: ${statusLine.slice(0, 40)}`, true, 'EPROTO');
  const status = Number(m[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    const value = line.slice(i + 1).trim();
    headers[name] = headers[name] !== undefined ? `${headers[name]}, ${value}` : value;
  }
  if (status >= 100 && status < 200) throw new NotPlainBody('an interim answer');
  const te = headers['transfer-encoding'];
  if (te !== undefined && te.toLowerCase() !== 'identity') throw new NotPlainBody(`transfer-encoding ${te}`);
  const cl = headers['content-length'];
  let length: number | undefined;
  if (cl !== undefined) {
    if (!/^\d+$/.test(cl)) throw new TransportError(`bad Content-Length: ${cl}`, true, 'EPROTO');
    length = Number(cl);
  }
  if (status === 204 || status === 304) length = 0;
  return { status, headers, length };
}
