import net from 'node:net';
import tls from 'node:tls';
import type { IncomingHttpHeaders } from 'node:http';
import { canceledError, TransportError } from './transport-error.js';
import { requestTarget } from './url-policy.js';
import type { FileBatcher } from './batched-file-writer.js';
import { trustSystemCertificatesOnce } from '../platform/system-trust.js';
import type { ChunkedDecoder } from './http1-answer.js';
import { framingOf, HEAD_LIMIT, parseHead, skipInterim, type Framing } from './http1-answer.js';

/**
 * GET of a download address into a file over one socket, https (TLS, the certificate verified as
 * everywhere else) or plain http (loopback only), whose reads land in one reused buffer. Node's http
 * client runs its parser in JavaScript and an allocation and stream events for each 16 KiB TLS record;
 * that costs about twice curl's CPU for the whole download and its throughput on a busy machine, while
 * this path keeps up with curl (bench/transfer.bench.ts).
 *
 * It reads every answer a GET can get to its end itself (RFC 9112): a body of Content-Length bytes, a
 * chunked body, a body up to the end of the connection, after any interim (1xx) answers. It never hands
 * an answer to another client: that would send a second GET, and a pre-signed address may be good for
 * one. What breaks the framing is a TransportError with code EPROTO, never guessed around: a body whose
 * end cannot be told is not known to be whole.
 */
export interface SocketGetResult {
  status: number;
  headers: IncomingHttpHeaders;
  /** Bytes of the body written to the file (2xx only). */
  bytes: number;
  /** The start of the body of an answer other than 2xx, for its error message. */
  errorBody?: string;
}

const READ_BUFFER = 256 * 1024;
const CRLFCRLF = Buffer.from('\r\n\r\n');

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  framing: Framing;
}

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
    /**
     * A success's head was read: its Content-Length, when it has one, its status and headers. False
     * refuses the answer (a resumed download's range that is not the one asked for).
     */
    onHead?: (length: number | undefined, status: number, headers: IncomingHttpHeaders) => boolean | void;
    /** Request headers besides the usual ones (a resumed download's Range and If-Range). */
    headers?: Record<string, string>;
    onBytes?: (total: number) => void;
  },
): Promise<SocketGetResult> {
  return new Promise<SocketGetResult>((resolve, reject) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return reject(new TransportError(`${url.protocol} is not http`, false, 'EPROTO'));
    if (opts.signal?.aborted) return reject(canceledError());
    let sent = false;
    let settled = false;
    /** The start of a head that has not come whole yet. */
    let pending = Buffer.alloc(0);
    let interim = 0;
    let answer: Answer | undefined;
    /** Body bytes taken so far (written to the file for a success, else kept in part for the message). */
    let received = 0;
    const errorChunks: Buffer[] = [];
    let errorBytes = 0;
    /**
     * Reads that came while the file was taking earlier bytes, in order. A TLS socket hands on what it
     * has decrypted even after its read callback asked it to pause (a TCP socket does not): written at
     * once, those bytes met a file still busy with the ones before, and a 1 GiB download of the
     * transfer bench came out 688 KiB short, reported whole; a chunked one was fed out of order.
     */
    const backlog: Buffer[] = [];
    /** The file is taking bytes: reads wait in the backlog. */
    let busy = false;
    /** The socket ended, or closed, while the file was busy: dealt with once the backlog is through. */
    let endedWhileBusy = false;
    let closedWhileBusy = false;

    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      fn();
    };
    const fail = (e: Error): void => finish(() => reject(e));
    const onAbort = (): void => fail(canceledError());
    const success = (): boolean => answer !== undefined && answer.status >= 200 && answer.status < 300;

    /** The body is complete: flush the file and answer. */
    const complete = (): void => {
      if (settled) return;
      if (!answer)
        return fail(new TransportError('the connection closed before an answer', sent, 'ECONNRESET'));
      const { status, headers, framing } = answer;
      // A refusal is told by its status: a message cut short does not change it.
      if (!success()) {
        const errorBody = Buffer.concat(errorChunks).toString('utf8');
        return finish(() => resolve({ status, headers, bytes: 0, errorBody }));
      }
      if (framing.kind === 'length' && received < framing.length)
        return fail(
          new TransportError(
            `the download ended after ${received} of ${framing.length} bytes`,
            true,
            'ECONNRESET',
          ),
        );
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      batcher.finish().then(() => resolve({ status, headers, bytes: received }), reject);
    };

    /** The socket ended, and every byte it gave was taken: the answer is whole, or says how not. */
    const atEnd = (): void => {
      if (!answer) return fail(new TransportError('the answer was cut off', sent, 'ECONNRESET'));
      if (answer.framing.kind === 'chunked' && success() && !answer.framing.decoder.done)
        return fail(new TransportError('the answer ended before its last chunk', true, 'ECONNRESET'));
      // A body up to the end of the connection is whole now; one of Content-Length may be short of it
      // (complete() says so); a refusal is told by its status, whatever came of its message.
      complete();
    };
    const closedEarly = (): TransportError => new TransportError('the connection closed', sent, 'ECONNRESET');

    /** Body bytes, after any framing: undefined when taken, else a promise of when the file took them. */
    const sink = (buf: Buffer, start: number, end: number): Promise<void> | undefined => {
      received += end - start;
      if (!success()) {
        if (errorBytes < HEAD_LIMIT) {
          errorChunks.push(Buffer.from(buf.subarray(start, end)));
          errorBytes += end - start;
        }
        return undefined;
      }
      opts.onBytes?.(received);
      return batcher.add(buf, start, end);
    };

    /** The file takes bytes until `wait` settles: reads wait in the backlog meanwhile. */
    const busyUntil = (wait: Promise<void>): false => {
      busy = true;
      // A throw while going on (a progress callback's, say) fails the download, never leaves it hanging.
      wait.then(goOn, fail).catch(fail);
      return false;
    };

    const bodyDone = (): boolean => {
      const framing = (answer as Answer).framing;
      return framing.kind === 'chunked'
        ? framing.decoder.done
        : framing.kind === 'length' && received >= framing.length;
    };

    /** The file took what it was given: the reads that waited go on, in order, then the socket. */
    const goOn = (): void => {
      busy = false;
      while (!settled && !busy && backlog.length > 0) {
        const read = backlog.shift() as Buffer;
        takeBody(read, 0, read.length);
      }
      if (settled || busy) return;
      if (bodyDone()) complete();
      else if (endedWhileBusy) atEnd();
      else if (closedWhileBusy) fail(closedEarly());
      else socket.resume();
    };

    /** Body bytes as they came: true to read on, false when the socket waits (or the body is done). */
    const takeBody = (buf: Buffer, start: number, end: number): boolean => {
      const framing = (answer as Answer).framing;
      if (framing.kind === 'chunked') return takeChunks(framing.decoder, buf, start, end);
      // Bytes past the announced length are not the file's.
      const length = framing.kind === 'length' ? framing.length : Infinity;
      end = Math.min(end, start + (length - received));
      if (end > start) {
        const wait = sink(buf, start, end);
        // The batcher kept what it could not take yet: the read buffer is free again.
        if (wait) return busyUntil(wait);
      }
      if (received < length) return true;
      complete();
      return false;
    };

    const takeChunks = (decoder: ChunkedDecoder, buf: Buffer, start: number, end: number): boolean => {
      let step: { at: number; wait?: Promise<void> | undefined };
      try {
        step = decoder.feed(buf, start, end);
      } catch (e) {
        fail(e as Error);
        return false;
      }
      if (step.wait) {
        // The file is busy: what follows in this read (more chunks) waits in a copy of its own, since
        // the read buffer is the next read's, ahead of any later read.
        if (step.at < end) backlog.unshift(Buffer.from(buf.subarray(step.at, end)));
        return busyUntil(step.wait);
      }
      if (!decoder.done) return true;
      complete();
      return false;
    };

    /** Head bytes: the final answer's head is parsed, interim ones are skipped, the body goes on. */
    const takeHead = (buf: Buffer, n: number): boolean => {
      // The head mostly comes whole in the first read: it is then parsed where it lies, and the body
      // bytes after it go on from the read buffer without a copy.
      const data = pending.length === 0 ? buf.subarray(0, n) : Buffer.concat([pending, buf.subarray(0, n)]);
      let start = 0;
      for (;;) {
        const end = data.indexOf(CRLFCRLF, start);
        if (end < 0) break;
        try {
          const head = parseHead(data.toString('latin1', start, end));
          start = end + 4;
          if (head.status < 200) {
            skipInterim(head.status, ++interim);
            continue;
          }
          answer = { status: head.status, headers: head.headers, framing: framingOf(head, sink) };
        } catch (e) {
          fail(e as Error);
          return false;
        }
        pending = Buffer.alloc(0);
        const { framing } = answer;
        const length = framing.kind === 'length' ? framing.length : undefined;
        if (success() && opts.onHead?.(length, answer.status, answer.headers) === false) {
          fail(
            new TransportError('the storage sent another part of the file than asked for', true, 'EPROTO'),
          );
          return false;
        }
        if (framing.kind === 'length' && framing.length === 0) {
          complete();
          return false;
        }
        return start < data.length ? takeBody(data, start, data.length) : true;
      }
      pending = Buffer.from(data.subarray(start));
      if (pending.length <= HEAD_LIMIT) return true;
      fail(new TransportError('the answer has no end of headers', true, 'EPROTO'));
      return false;
    };

    const onRead = (n: number, buf: Buffer): boolean => {
      if (settled) return false;
      if (!answer) return takeHead(buf, n);
      if (!busy) return takeBody(buf, 0, n);
      backlog.push(Buffer.from(buf.subarray(0, n)));
      return false;
    };

    const host = url.hostname.replace(/^\[|\]$/g, '');
    const onread = { buffer: (sharedReadBuffer ??= Buffer.allocUnsafe(READ_BUFFER)), callback: onRead };
    const secure = url.protocol === 'https:';
    // tls.connect verifies the certificate and that it names this host (as the https module does);
    // SNI carries the name, never an IP address.
    // onread works for TLS sockets too (checked by transfers-https.test.ts and the transfer bench),
    // though @types/node lists it for net sockets only; but a TLS socket goes on handing over what it
    // has decrypted after the callback returned false (see backlog).
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
        `GET ${requestTarget(url)} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: */*\r\n` +
        'Accept-Encoding: identity\r\nUser-Agent: scan2mesh\r\nConnection: close\r\n' +
        Object.entries(opts.headers ?? {})
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('') +
        '\r\n';
      socket.write(request, () => {
        sent = true;
      });
    });
    socket.on('end', () => {
      if (settled) return;
      if (busy) endedWhileBusy = true;
      else atEnd();
    });
    socket.on('close', () => {
      if (settled) return;
      if (busy) closedWhileBusy = true;
      else fail(closedEarly());
    });
    // The library's own text (an errno, a TLS alert) stays in `cause`; the code says what happened.
    socket.on('error', (e: Error & { code?: string }) =>
      fail(new TransportError('the connection was lost or refused', sent, e.code, { cause: e })),
    );
  });
}
