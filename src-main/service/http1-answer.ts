import type { IncomingHttpHeaders } from 'node:http';
import { TransportError } from './transport-error.js';

/**
 * Reading an HTTP/1.1 answer strictly (RFC 9110, RFC 9112), for socket-download.ts: its head, how its
 * body ends, and a chunked body's decoding. Whatever is ambiguous is an error, never guessed around.
 */

/** The most bytes of an answer's head (and of a chunked body's trailer section). */
export const HEAD_LIMIT = 64 * 1024;
/** Interim answers (103 Early Hints, a stray 100) skipped before the final one; more is a broken server. */
const MAX_INTERIM = 8;

/** How the end of a body is known (RFC 9112 §6.3). */
export type Framing =
  { kind: 'length'; length: number } | { kind: 'chunked'; decoder: ChunkedDecoder } | { kind: 'close' };

/** An answer that breaks HTTP's framing: nothing of its body can be trusted. */
export function malformed(what: string): TransportError {
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

export function parseHead(text: string): Head {
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
export function skipInterim(status: number, count: number): void {
  if (status === 101) throw malformed('the answer switches protocols unasked');
  if (count > MAX_INTERIM) throw malformed(`more than ${MAX_INTERIM} interim answers`);
}

/** How this answer's body ends (RFC 9112 §6.3), strictly: an ambiguous length is an error. */
export function framingOf(
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
export class ChunkedDecoder {
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
