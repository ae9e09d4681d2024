// The socket path of downloads (https in use; tested here over plain TCP, which it speaks the same
// way): a whole body, one cut short, an answer it leaves to the http module, a refusal.
import net from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileBatcher } from './batched-file-writer.js';
import { NotPlainBody, socketGetToFile } from './socket-download.js';
import { TransportError } from './transport-error.js';

let answer: (socket: net.Socket) => void;
let server: net.Server;
let url: URL;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'socket-download-'));
  server = net.createServer((socket) => {
    socket.once('data', () => answer(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/out/0.stl?sig=1`);
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const get = async (name: string) => {
  const file = await FileBatcher.create(join(dir, name), 1024, 3000);
  try {
    return await socketGetToFile(url, file, { idleTimeoutMs: 2_000 });
  } finally {
    await file.close();
  }
};

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

  it('fails a body cut short, leaves a chunked one to the http module, and reads a refusal', async () => {
    answer = (s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 3000\r\n\r\nabc');
    const cut = await get('cut.bin').catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(TransportError);
    answer = (s) => s.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n');
    await expect(get('chunked.bin')).rejects.toBeInstanceOf(NotPlainBody);
    answer = (s) => s.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 7\r\n\r\nexpired');
    const refused = await get('refused.bin');
    expect([refused.status, refused.errorBody]).toEqual([403, 'expired']);
  });
});
