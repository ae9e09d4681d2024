import net from 'node:net';
import tls from 'node:tls';
import type { IncomingHttpHeaders } from 'node:http';
import { canceledError, TransportError } from './transport-error.js';
import type { FileBatcher } from './batched-file-writer.js';
import { trustSystemCertificatesOnce } from '../platform/system-trust.js';

/**
 * GET of a download address into a file over one socket, https (TLS, the certificate verified as
 * everywhere else) or plain http (loopback only), whose reads land in one reused buffer. Node's http
 * client runs its parser in JavaScript and an allocation and stream events for each 16 KiB TLS record;
 * that costs about twice curl's CPU for the whole download and its throughput on a busy machine, while
 * this path keeps up with curl (bench/transfer.bench.ts). It handles the one shape downloads have
 * (status, headers, a body of Content-Length bytes or up to the end of the connection); anything else
 * (chunked bodies, interim answers) is left to the http module by throwing NotPlainBody before any of
 * the body is taken.
 */
export class NotPlainBody extends Error {}

export interface SocketGetResult {
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

/**
 * The one buffer every download socket reads into: a read is handled to its end in the callback
 * (copied into the file's batcher, or kept aside) before the next read of any socket can land, so
 * downloads running at once can share it, and a queue of small downloads does not make (and leave to
 * the garbage collector) 256 KiB for each.
 */
let sharedReadBuffer: Buffer | undefined;

export function socketGetToFile(
  url: URL,
  batcher: FileBatcher,
  opts: {
    signal?: AbortSignal | undefined;
    idleTimeoutMs: number;
    /** A success's head was read: its Content-Length, when it has one. */
    onHead?: (length: number | undefined) => void;
    onBytes?: (total: number) => void;
  },
): Promise<SocketGetResult> {
  return new Promise<SocketGetResult>((resolve, reject) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return reject(new NotPlainBody(url.protocol));
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
      // The head mostly comes whole in the first read: it is then parsed where it lies, and the body
      // bytes after it go on from the read buffer without a copy.
      const data = head.length === 0 ? buf.subarray(0, n) : Buffer.concat([head, buf.subarray(0, n)]);
      const end = data.indexOf(CRLFCRLF);
      if (end < 0) {
        head = Buffer.from(data);
        if (head.length > HEAD_LIMIT)
          fail(new TransportError('the answer has no end of headers', true, 'EPROTO'));
        return true;
      }
      head = Buffer.alloc(0);
      try {
        answer = parseHead(data.toString('latin1', 0, end));
      } catch (e) {
        fail(e as Error);
        return false;
      }
      if (answer.status >= 200 && answer.status < 300) opts.onHead?.(answer.length);
      const start = end + 4;
      return start < data.length
        ? body(data, start, data.length)
        : answer.length === 0
          ? (complete(), false)
          : true;
    };

    const host = url.hostname.replace(/^\[|\]$/g, '');
    const onread = { buffer: (sharedReadBuffer ??= Buffer.allocUnsafe(READ_BUFFER)), callback: onRead };
    const secure = url.protocol === 'https:';
    // tls.connect verifies the certificate and that it names this host (as the https module does);
    // SNI carries the name, never an IP address.
    // onread works for TLS sockets too (checked by transfers-https.test.ts and the transfer bench),
    // though @types/node lists it for net sockets only.
    const tlsOptions: tls.ConnectionOptions & Pick<net.TcpSocketConnectOpts, 'onread'> = {
      host,
      port: Number(url.port || 443),
      ...(net.isIP(host) ? {} : { servername: host }),
      ALPNProtocols: ['http/1.1'],
      onread,
    };
    if (secure) trustSystemCertificatesOnce();
    const socket = secure
      ? tls.connect(tlsOptions)
      : net.connect({ host, port: Number(url.port || 80), onread });
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    socket.setTimeout(opts.idleTimeoutMs, () =>
      fail(new TransportError(`no data for ${Math.round(opts.idleTimeoutMs / 1000)} s`, sent, 'ETIMEDOUT')),
    );
    socket.on(secure ? 'secureConnect' : 'connect', () => {
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
    // The library's own text (an errno, a TLS alert) stays in `cause`; the code says what happened.
    socket.on('error', (e: Error & { code?: string }) =>
      fail(new TransportError('the connection was lost or refused', sent, e.code, { cause: e })),
    );
  });
}

function parseHead(text: string): {
  status: number;
  headers: IncomingHttpHeaders;
  length: number | undefined;
} {
  const [statusLine = '', ...lines] = text.split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!m) throw new TransportError('the answer is not HTTP', true, 'EPROTO');
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
    if (!/^\d+$/.test(cl))
      throw new TransportError('the answer has a malformed Content-Length', true, 'EPROTO');
    length = Number(cl);
  }
  if (status === 204 || status === 304) length = 0;
  return { status, headers, length };
}
