// The socket path of downloads (https in use; tested here over plain TCP, which it speaks the same
// way): every framing of an answer to a GET (Content-Length, chunked, up to the end of the
// connection), interim answers, bodies cut short, framing that breaks RFC 9112, a refusal. Each answer
// is written by hand, byte for byte, by a raw TCP server, which also counts the requests it got.
import net from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileBatcher } from './batched-file-writer.js';
import { socketGetToFile } from './socket-download.js';
import { TransportError } from './transport-error.js';

let answer: (socket: net.Socket) => void;
let requests: number;
let server: net.Server;
let url: URL;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'socket-download-'));
  server = net.createServer((socket) => {
    socket.once('data', () => {
      requests++;
      answer(socket);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/out/0.stl?sig=1`);
});

beforeEach(() => {
  requests = 0;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** One GET into `name`, through a batcher of `batch`-byte buffers (small ones make the socket wait). */
const get = async (name: string, batch = 1024) => {
  const file = await FileBatcher.create(join(dir, name), batch, 3000);
  try {
    return await socketGetToFile(url, file, { idleTimeoutMs: 2_000 });
  } finally {
    await file.close();
  }
};

/** Writes `text` in pieces of `size` bytes, each after the one before has gone. */
function writeInPieces(s: net.Socket, text: Buffer, size: number): void {
  const next = (at: number): void => {
    if (at >= text.length) return void s.end();
    s.write(text.subarray(at, at + size), () => setImmediate(() => next(at + size)));
  };
  next(0);
}

/** A chunked body of `body` in chunks of `size` bytes, each with an extension, then a trailer. */
function chunked(body: Buffer, size: number): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) {
    const chunk = body.subarray(at, at + size);
    parts.push(Buffer.from(`${chunk.length.toString(16)} ; n=1;q="a;b"\r\n`), chunk, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\nX-Checksum: abc\r\n\r\n'));
  return Buffer.concat(parts);
}

const pattern = (n: number): Buffer => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7) % 251));

/** The TransportError a GET failed with. */
async function failure(p: Promise<unknown>): Promise<TransportError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(TransportError);
  return e as TransportError;
}

describe('socketGetToFile', () => {
  it('writes a body of Content-Length to the file, in several reads', async () => {
    const body = Buffer.alloc(3000, 9);
    answer = (s) => {
      s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`);
      s.write(body.subarray(0, 1000), () => setTimeout(() => s.end(body.subarray(1000)), 10));
    };
    const got = await get('whole.bin');
    expect([got.status, got.bytes]).toEqual([200, 3000]);
    expect((await readFile(join(dir, 'whole.bin'))).equals(body)).toBe(true);
  });

  it('writes every byte in order into a file busy at every read, the whole answer come at once', async () => {
    // The whole answer at once, then the end of the connection, into a file of 64-byte buffers, busy
    // at every read. With a length, chunked, and up to the end. (Over TLS, where the socket goes on
    // reading while the file is busy and may end meanwhile: transfers-https.test.ts.)
    const body = pattern(200_000);
    for (const [name, head, payload] of [
      ['ended-length.bin', `Content-Length: ${body.length}`, body],
      ['ended-chunked.bin', 'Transfer-Encoding: chunked', chunked(body, 7000)],
      ['ended-close.bin', 'Connection: close', body],
    ] as const) {
      answer = (s) => s.end(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\n${head}\r\n\r\n`), payload]));
      const got = await get(name, 64);
      expect([got.status, got.bytes]).toEqual([200, body.length]);
      expect((await readFile(join(dir, name))).equals(body)).toBe(true);
    }
  });

  it('decodes a chunked body itself, with one GET, however the reads split it', async () => {
    const body = pattern(3000);
    const message = Buffer.concat([
      Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'),
      chunked(body, 700),
    ]);
    // Byte by byte: every line, size and CRLF is split across reads.
    answer = (s) => writeInPieces(s, message, 1);
    const got = await get('chunked-bytes.bin');
    expect([got.status, got.bytes, requests]).toEqual([200, 3000, 1]);
    expect((await readFile(join(dir, 'chunked-bytes.bin'))).equals(body)).toBe(true);
    // All at once, into buffers of 64 bytes: the file makes the socket wait in the middle of a read
    // that holds many more chunks.
    const big = pattern(200_000);
    answer = (s) =>
      s.end(
        Buffer.concat([
          Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n'),
          chunked(big, 100),
        ]),
      );
    const many = await get('chunked-many.bin', 64);
    expect([many.bytes, requests]).toEqual([200_000, 2]);
    expect((await readFile(join(dir, 'chunked-many.bin'))).equals(big)).toBe(true);
  });

  it('refuses chunked framing that breaks RFC 9112, and a body cut before its last chunk', async () => {
    const head = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';
    const broken = [
      'zz\r\nabc\r\n0\r\n\r\n', // not a hex size
      '3\r\nabcd\r\n0\r\n\r\n', // more data than the size says
      '3\nabc\r\n0\r\n\r\n', // a bare LF ends the size line
      '3 junk\r\nabc\r\n0\r\n\r\n', // not an extension
      `1${'0'.repeat(14)}\r\n`, // larger than any file
      `${'0'.repeat(9000)}3\r\nabc\r\n0\r\n\r\n`, // a line longer than any real server's
      '3\r\nabc\r\n0\r\nnot a field\r\n\r\n', // a malformed trailer
    ];
    for (const body of broken) {
      answer = (s) => s.end(head + body);
      const e = await failure(get('broken.bin'));
      expect([e.code, body]).toEqual(['EPROTO', body]);
    }
    answer = (s) => s.end(`${head}3\r\nabc\r\n`);
    const cut = await failure(get('cut-chunks.bin'));
    expect([cut.code, cut.message]).toEqual(['ECONNRESET', 'the answer ended before its last chunk']);
  });

  it('refuses heads whose framing is ambiguous or not asked for', async () => {
    const heads = [
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n', // both
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n', // a coding that was not asked for
      'HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', // chunked in HTTP/1.0
      'HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n', // two lengths
      'HTTP/1.1 200 OK\r\nContent-Length: 3\r\n folded\r\n\r\n', // a folded line
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n', // a switch nobody asked for
    ];
    for (const h of heads) {
      answer = (s) => s.end(`${h}3\r\nabc\r\n0\r\n\r\n`);
      const e = await failure(get('ambiguous.bin'));
      expect([e.code, h]).toEqual(['EPROTO', h]);
    }
    expect(requests).toBe(heads.length);
  });

  it('skips interim answers, and reads a body without a length up to the end of the connection', async () => {
    answer = (s) =>
      s.end(
        'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n' +
          'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello',
      );
    const hinted = await get('hinted.bin');
    expect([hinted.status, hinted.bytes, requests]).toEqual([200, 5, 1]);
    answer = (s) => writeInPieces(s, Buffer.from('HTTP/1.1 200 OK\r\n\r\nup to the end'), 4);
    const closed = await get('closed.bin');
    expect(closed.bytes).toBe(13);
    expect(await readFile(join(dir, 'closed.bin'), 'utf8')).toBe('up to the end');
  });

  it('fails a body cut short of its length, and reads a refusal, chunked or not', async () => {
    answer = (s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 3000\r\n\r\nabc');
    expect((await failure(get('cut.bin'))).code).toBe('ECONNRESET');
    answer = (s) => s.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 7\r\n\r\nexpired');
    const refused = await get('refused.bin');
    expect([refused.status, refused.errorBody]).toEqual([403, 'expired']);
    // A refusal is its status, even when its message is cut short.
    answer = (s) => s.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 100\r\n\r\nexpi');
    const short = await get('refused-short.bin');
    expect([short.status, short.errorBody]).toEqual([403, 'expi']);
    answer = (s) =>
      s.end('HTTP/1.1 503 Slow Down\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nslow\r\n0\r\n\r\n');
    const busy = await get('busy.bin');
    expect([busy.status, busy.errorBody]).toEqual([503, 'slow']);
  });
});
