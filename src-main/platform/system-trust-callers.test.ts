// The system's certificate authorities are trusted late: each way out to an https address does it
// before its first TLS connection, and plain http to this computer (the local engine) never reads them.
// node:tls lists and sets authorities only from Node 22.19 / 24.5 (Electron 41 carries Node 24); this
// Node has neither call, so a store that records its calls stands in for those two alone. Every
// connection below is real: to a loopback server, or refused by a closed loopback port.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Tls from 'node:tls';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

const calls = vi.hoisted(() => [] as string[]);

vi.mock('node:tls', async (importOriginal) => {
  const real = await importOriginal<typeof Tls>();
  return {
    ...real,
    getCACertificates: (type: string) => (calls.push(type), [`${type} authority`]),
    setDefaultCACertificates: (certs: string[]) => void calls.push(`set ${certs.length}`),
  };
});

const TRUSTED = ['default', 'system', 'set 2'];
const work = mkdtempSync(join(tmpdir(), 'scan2mesh-trust-'));
const server = createHttpServer((_req, res) => res.end('ok'));
let plain: string;
/** A loopback port no one listens on: an https connection to it is refused at once. */
let closed: string;

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  plain = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closed = `https://127.0.0.1:${(probe.address() as AddressInfo).port}/`;
  await new Promise<void>((r) => probe.close(() => r()));
});
afterAll(() => {
  server.close();
  rmSync(work, { recursive: true, force: true });
});
beforeEach(() => {
  // Each case starts as a fresh process would: nothing trusted yet.
  vi.resetModules();
  calls.length = 0;
});

describe('trusting the system store, late', () => {
  it('the http transport: not for http, once before its first https connection', async () => {
    const { send, discard } = await import('../service/http-transport.js');
    const get = (url: string) =>
      send({ method: 'GET', url: new URL(url), agents: false, idleTimeoutMs: 5_000 });
    discard(await get(plain));
    expect(calls).toEqual([]);
    await expect(get(closed)).rejects.toThrow();
    await expect(get(closed)).rejects.toThrow();
    expect(calls).toEqual(TRUSTED);
  });

  it('the download socket: not for http, before its first https connection', async () => {
    const { socketGetToFile } = await import('../service/socket-download.js');
    const { FileBatcher } = await import('../service/batched-file-writer.js');
    const get = async (url: string) => {
      const file = await FileBatcher.create(join(work, 'download'));
      try {
        return await socketGetToFile(new URL(url), file, { idleTimeoutMs: 5_000 });
      } finally {
        await file.close().catch(() => undefined);
      }
    };
    expect((await get(plain)).status).toBe(200);
    expect(calls).toEqual([]);
    await expect(get(closed)).rejects.toThrow();
    expect(calls).toEqual(TRUSTED);
  });

  it("the engine's client storage: before its first https connection", async () => {
    const { fetchToFile } = await import('../engine/server/client-storage.js');
    await fetchToFile(`${plain}input`, join(work, 'input'));
    expect(calls).toEqual([]);
    await expect(fetchToFile(`${closed}input`, join(work, 'input'))).rejects.toThrow();
    expect(calls).toEqual(TRUSTED);
  });
});
