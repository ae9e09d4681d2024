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

const HEAD_LIMIT = 64 * 1024;
const READ_BUFFER = 256 * 1024;
const CRLFCRLF = Buffer.from('\r\n\r\n');
/** Interim answers (103 Early Hints, a stray 100) skipped before the final one; more is a broken server. */
const MAX_INTERIM = 8;

/** How the end of a body is known (RFC 9112 §6.3). */
type Framing =
  { kind: 'length'; length: number } | { kind: 'chunked'; decoder: ChunkedDecoder } | { kind: 'close' };

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
    /** A success's head was read: its Content-Length, when it has one. */
    onHead?: (length: number | undefined) => void;
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

    /** Body bytes as they came: true to read on, false when the socket waits (or the body is done). */
    const takeBody = (buf: Buffer, start: number, end: number): boolean => {
      const framing = (answer as Answer).framing;
      if (framing.kind === 'chunked') return takeChunks(framing.decoder, buf, start, end);
      // Bytes past the announced length are not the file's.
      const length = framing.kind === 'length' ? framing.length : Infinity;
      end = Math.min(end, start + (length - received));
      if (end > start) {
        const wait = sink(buf, start, end);
        if (wait) {
          // The batcher kept what it could not take yet: the read buffer is free again.
          wait.then(() => (received >= length ? complete() : socket.resume()), fail);
          return false;
        }
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
        // the read buffer is the next read's.
        const rest = Buffer.from(buf.subarray(step.at, end));
        step.wait.then(() => {
          if (!settled && takeChunks(decoder, rest, 0, rest.length)) socket.resume();
        }, fail);
        return false;
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
        if (success()) opts.onHead?.(framing.kind === 'length' ? framing.length : undefined);
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
      return answer ? takeBody(buf, 0, n) : takeHead(buf, n);
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
      if (settled) return;
      if (!answer) return fail(new TransportError('the answer was cut off', sent, 'ECONNRESET'));
      if (answer.framing.kind === 'chunked' && success())
        return fail(new TransportError('the answer ended before its last chunk', true, 'ECONNRESET'));
      // A body up to the end of the connection is whole now; one of Content-Length may be short of it
      // (complete() says so); a refusal is told by its status, whatever came of its message.
      complete();
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

/** An answer that breaks HTTP's framing: nothing of its body can be trusted. */
function malformed(what: string): TransportError {
  return new TransportError(what, true, 'EPROTO');
}

/** RFC 9110 §5.6.2 */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const FIELD_LINE = new RegExp(`^(${TOKEN}):[\\t ]*(.*?)[\\t ]*$`);

interface Head {
  minor: number;
  status: number;
  headers: IncomingHttpHeaders;
}

function parseHead(text: string): Head {
  const [statusLine = '', ...lines] = text.split('\r\n');
  const m = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(statusLine);
  if (!m) throw malformed('the answer is not HTTP/1.1');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const field = FIELD_LINE.exec(line);
    // A line folded onto the one before, or one without a name: the head cannot be read with certainty.
    if (!field) throw malformed('the answer has a malformed header line');
    const name = (field[1] as string).toLowerCase();
    const value = field[2] as string;
    headers[name] = headers[name] !== undefined ? `${headers[name]}, ${value}` : value;
  }
  return { minor: Number(m[1]), status: Number(m[2]), headers };
}

/** 101 switches protocols, which a GET here never asks for; other 1xx are hints to skip. */
function skipInterim(status: number, count: number): void {
  if (status === 101) throw malformed('the answer switches protocols unasked');
  if (count > MAX_INTERIM) throw malformed(`more than ${MAX_INTERIM} interim answers`);
}

/** How this answer's body ends (RFC 9112 §6.3), strictly: an ambiguous length is an error. */
function framingOf(
  head: Head,
  sink: (buf: Buffer, start: number, end: number) => Promise<void> | undefined,
): Framing {
  if (head.status === 204 || head.status === 304) return { kind: 'length', length: 0 };
  const te = head.headers['transfer-encoding'];
  const cl = head.headers['content-length'];
  if (te !== undefined) {
    if (head.minor === 0) throw malformed('an HTTP/1.0 answer has Transfer-Encoding');
    // Both: one of them is wrong, and reading by the other could take an attacker's bytes as the file.
    if (cl !== undefined) throw malformed('the answer has both Transfer-Encoding and Content-Length');
    const codings = te
      .split(',')
      .map((c) => c.trim().toLowerCase())
      .filter(Boolean);
    // No Accept-Encoding was sent: a coding other than chunked (gzip) would land undecoded in the file.
    if (codings.length !== 1 || codings[0] !== 'chunked')
      throw malformed(`the answer uses the transfer coding "${te}", which was not asked for`);
    return { kind: 'chunked', decoder: new ChunkedDecoder(sink) };
  }
  if (cl === undefined) return { kind: 'close' };
  // A repeated Content-Length arrives joined ("5, 5") and fails here too.
  if (!/^\d{1,15}$/.test(cl)) throw malformed('the answer has a malformed Content-Length');
  return { kind: 'length', length: Number(cl) };
}

const CR = 13;
const LF = 10;
/** A chunk-size line with its extensions, or one trailer field line; longer is not a real server's. */
const LINE_LIMIT = 8 * 1024;
/** Hex digits of a chunk size without its leading zeros: 13 keeps it below 2^53 (an exact number). */
const SIZE_DIGITS = 13;
const QUOTED = '"(?:[\\t \\x21\\x23-\\x5B\\x5D-\\x7E\\x80-\\xFF]|\\\\[\\t \\x21-\\x7E\\x80-\\xFF])*"';
/** RFC 9112 §7.1.1: chunk-size [ chunk-ext ], chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS value ] ). */
const CHUNK_LINE = new RegExp(
  `^([0-9A-Fa-f]+)(?:[\\t ]*;[\\t ]*${TOKEN}(?:[\\t ]*=[\\t ]*(?:${TOKEN}|${QUOTED}))?)*$`,
);
/** RFC 9112 §7.1.2: a trailer field line (the value's characters: VCHAR, obs-text, SP, HTAB). */
const TRAILER_LINE = new RegExp(`^${TOKEN}:[\\t \\x21-\\x7E\\x80-\\xFF]*$`);

/**
 * A chunked body (RFC 9112 §7.1), decoded as it arrives: each chunk's data goes on where it lies in
 * the read buffer; sizes, extensions, the CRLF after each chunk and the trailer section are checked
 * to the letter and bounded (LINE_LIMIT, HEAD_LIMIT), and nothing after the last chunk is taken.
 */
class ChunkedDecoder {
  private state: 'size' | 'data' | 'data-cr' | 'data-lf' | 'trailer' | 'done' = 'size';
  /** The line read so far (a chunk size, a trailer field), when it spans reads. */
  private line = '';
  /** Data bytes of the current chunk not yet taken. */
  private left = 0;
  private trailerBytes = 0;

  constructor(
    private readonly onData: (buf: Buffer, start: number, end: number) => Promise<void> | undefined,
  ) {}

  /** The last chunk and the trailer section have been read. */
  get done(): boolean {
    return this.state === 'done';
  }

  /**
   * Decodes buf[start, end). Stops early when onData has to be waited for: `at` is then where to go
   * on once `wait` has settled. Throws a TransportError (EPROTO) for anything that breaks the framing.
   */
  feed(buf: Buffer, start: number, end: number): { at: number; wait?: Promise<void> } {
    let at = start;
    while (at < end && this.state !== 'done') {
      switch (this.state) {
        case 'data': {
          const stop = Math.min(end, at + this.left);
          this.left -= stop - at;
          if (this.left === 0) this.state = 'data-cr';
          const wait = this.onData(buf, at, stop);
          at = stop;
          if (wait) return { at, wait };
          break;
        }
        case 'data-cr':
        case 'data-lf':
          if (buf[at] !== (this.state === 'data-cr' ? CR : LF))
            throw malformed('a chunk is longer than its size says (no CRLF after its data)');
          this.state = this.state === 'data-cr' ? 'data-lf' : 'size';
          at++;
          break;
        default:
          at = this.readLine(buf, at, end);
      }
    }
    return { at };
  }

  /** Takes bytes of a size or trailer line up to its LF; a whole line is then acted on. */
  private readLine(buf: Buffer, at: number, end: number): number {
    const lf = buf.subarray(at, end).indexOf(LF);
    const stop = lf < 0 ? end : at + lf + 1;
    this.line += buf.toString('latin1', at, stop);
    if (this.line.length > LINE_LIMIT) throw malformed('a chunk line is too long');
    if (lf < 0) return stop;
    if (!this.line.endsWith('\r\n')) throw malformed('a chunk line does not end in CRLF');
    const text = this.line.slice(0, -2);
    this.line = '';
    if (this.state === 'size') this.sizeLine(text);
    else this.trailerLine(text);
    return stop;
  }

  private sizeLine(text: string): void {
    const digits = CHUNK_LINE.exec(text)?.[1];
    if (digits === undefined) throw malformed('a chunk has a malformed size line');
    if (digits.replace(/^0+/, '').length > SIZE_DIGITS) throw malformed('a chunk is larger than any file');
    this.left = parseInt(digits, 16);
    this.state = this.left === 0 ? 'trailer' : 'data';
  }

  /** Trailer fields are read and dropped: nothing here needs them. An empty line ends the body. */
  private trailerLine(text: string): void {
    if (text === '') {
      this.state = 'done';
      return;
    }
    this.trailerBytes += text.length + 2;
    if (this.trailerBytes > HEAD_LIMIT) throw malformed('the trailer section is too long');
    if (!TRAILER_LINE.test(text)) throw malformed('the trailer section has a malformed field line');
  }
}
