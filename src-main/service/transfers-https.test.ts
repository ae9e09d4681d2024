import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  makeSelfSignedCertificate,
  startHttpsStorage,
  type HttpsStorage,
  type TlsFiles,
} from './https-storage.test-support.js';
import { ServiceClient } from './service-client.js';
import { SCAN } from './test-engine.test-support.js';
import { failure } from './transfers.test-support.js';

/**
 * Transfers to pre-signed https addresses, as real services hand out: the certificate is verified
 * (never switched off), and a user's own authority is trusted through NODE_EXTRA_CA_CERTS.
 */
let dir: string;
let tls: TlsFiles;
let storage: HttpsStorage;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-https-'));
  tls = makeSelfSignedCertificate(dir);
  storage = await startHttpsStorage({ dir, tls });
});

afterAll(async () => {
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

/** The client's module, for scripts run in a child process (NODE_EXTRA_CA_CERTS is read at its start). */
const serviceClient = fileURLToPath(new URL('./service-client.ts', import.meta.url));
const socketDownload = fileURLToPath(new URL('./socket-download.ts', import.meta.url));
const batchedFileWriter = fileURLToPath(new URL('./batched-file-writer.ts', import.meta.url));

/** A client of the https storage; plain data, so a child process can be given the same. */
function clientOptions(): ConstructorParameters<typeof ServiceClient>[0] {
  return {
    baseUrl: `${storage.origin}/24.06`,
    authUrl: `${storage.origin}/auth`,
    audience: 'test',
    clientId: 'test',
    clientSecret: 'test',
    retry: { maxAttempts: 1 },
  };
}

/**
 * Runs `script` (an ES module, TypeScript imports allowed) in a Node process that trusts the storage's
 * certificate: NODE_EXTRA_CA_CERTS is read when a process starts. Its standard output.
 */
async function trustingChild(script: string, args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script, ...args],
    { env: { ...process.env, NODE_EXTRA_CA_CERTS: tls.certPath } },
  );
  return stdout;
}

function client(): ServiceClient {
  return new ServiceClient(clientOptions());
}

describe('transfers over https', () => {
  it('refuses a certificate the system does not trust, and says how to trust one', async () => {
    const c = client();
    try {
      for (const e of [
        await failure(c.upload(storage.uploadUrl('refused.bin'), SCAN)),
        await failure(c.download(storage.downloadUrl('refused.bin'), join(dir, 'out', 'refused.bin'))),
      ]) {
        expect(e.code).toBe('network');
        expect(e.message).toContain('certificate is not trusted');
        expect(e.action).toContain('NODE_EXTRA_CA_CERTS');
      }
    } finally {
      c.close();
    }
  });

  it('uploads and downloads (chunked answers too) when NODE_EXTRA_CA_CERTS names the certificate', async () => {
    // NODE_EXTRA_CA_CERTS is read when a process starts: the client runs in a process of its own.
    const dest = join(dir, 'out', 'scan.dcm');
    await copyFile(SCAN, join(dir, 'chunked-scan.dcm'));
    const script = `
      const { ServiceClient } = await import(${JSON.stringify(serviceClient)});
      const c = new ServiceClient(JSON.parse(process.argv[1]));
      await c.upload(process.argv[2], process.argv[3]);
      const got = await c.download(process.argv[4], process.argv[5], {});
      // Without a length: the socket path decodes the chunks itself, over TLS as over TCP.
      await c.download(process.argv[6], process.argv[7], {});
      c.close();
      process.stdout.write(JSON.stringify(got));
    `;
    const options = clientOptions();
    const stdout = await trustingChild(script, [
      JSON.stringify(options),
      storage.uploadUrl('scan.dcm'),
      SCAN,
      storage.downloadUrl('scan.dcm'),
      dest,
      storage.downloadUrl('chunked-scan.dcm'),
      join(dir, 'out', 'chunked.dcm'),
    ]);
    const scan = await readFile(SCAN);
    expect(JSON.parse(stdout)).toEqual({ path: dest, bytes: scan.length });
    expect((await readFile(join(dir, 'scan.dcm'))).equals(scan)).toBe(true);
    expect((await readFile(dest)).equals(scan)).toBe(true);
    expect((await readFile(join(dir, 'out', 'chunked.dcm'))).equals(scan)).toBe(true);
    expect(storage.authHeaders).toBe(0);
  });

  // The transfer bench: a 1 GiB download came out up to 688 KiB short, reported whole. A TLS socket
  // delivers what it has decrypted even after its read callback asked it to pause, and those reads
  // reached the file while it was still taking the one before: two writes at one place in the file.
  it('writes every byte in order when the disk is slower than the socket, with a length or chunked', async () => {
    const body = Buffer.alloc(24 * 1024 * 1024);
    for (let i = 0; i < body.length; i += 4) body.writeUInt32LE(i, i);
    await writeFile(join(dir, 'slow-disk.bin'), body);
    await writeFile(join(dir, 'chunked-slow-disk.bin'), body);
    await mkdir(join(dir, 'out'), { recursive: true });
    const script = `
      const { socketGetToFile } = await import(${JSON.stringify(socketDownload)});
      const { FileBatcher } = await import(${JSON.stringify(batchedFileWriter)});
      const got = [];
      for (const [url, path] of [[process.argv[1], process.argv[2]], [process.argv[3], process.argv[4]]]) {
        // Buffers of 4 KiB: the file is busy at almost every read.
        const file = await FileBatcher.create(path, 4096);
        got.push((await socketGetToFile(new URL(url), file, { idleTimeoutMs: 20_000 })).bytes);
      }
      process.stdout.write(JSON.stringify(got));
    `;
    const stdout = await trustingChild(script, [
      storage.downloadUrl('slow-disk.bin'),
      join(dir, 'out', 'slow-disk.bin'),
      storage.downloadUrl('chunked-slow-disk.bin'),
      join(dir, 'out', 'chunked-slow-disk.bin'),
    ]);
    expect(JSON.parse(stdout)).toEqual([body.length, body.length]);
    for (const name of ['slow-disk.bin', 'chunked-slow-disk.bin']) {
      const saved = await readFile(join(dir, 'out', name));
      expect(saved.length).toBe(body.length);
      // Where the first wrong word is, rather than a megabyte-long diff.
      let wrong = -1;
      for (let i = 0; i < body.length && wrong < 0; i += 4) if (saved.readUInt32LE(i) !== i) wrong = i;
      expect(wrong).toBe(-1);
    }
  });

  it('follows a redirect to https storage elsewhere, and refuses one from https to plain http', async () => {
    // The plain http address is on this computer, where plain http is otherwise allowed: leaving https
    // is refused all the same, before any request is sent there.
    let plainRequests = 0;
    const plain = createHttpServer((_req, res) => {
      plainRequests++;
      res.writeHead(200, { 'Content-Length': 2 }).end('no');
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const plainOrigin = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
    await copyFile(SCAN, join(dir, 'regional.dcm'));
    const redirector = createHttpsServer(
      { key: readFileSync(tls.keyPath), cert: readFileSync(tls.certPath) },
      (req, res) => {
        const to = req.url?.startsWith('/to-https')
          ? storage.downloadUrl('regional.dcm')
          : `${plainOrigin}/bucket/m.stl?X-Signature=abc`;
        res.writeHead(307, { Location: to, 'Content-Length': 0 }).end();
      },
    );
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    const origin = `https://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
    try {
      const script = `
        const { ServiceClient } = await import(${JSON.stringify(serviceClient)});
        const c = new ServiceClient(JSON.parse(process.argv[1]));
        const got = await c.download(process.argv[2], process.argv[3], {});
        const refused = await c.download(process.argv[4], process.argv[5], {}).then(
          () => 'downloaded',
          (e) => e.message,
        );
        c.close();
        process.stdout.write(JSON.stringify({ got, refused }));
      `;
      const dest = join(dir, 'out', 'regional.dcm');
      const stdout = await trustingChild(script, [
        JSON.stringify(clientOptions()),
        `${origin}/to-https?X-Signature=1`,
        dest,
        `${origin}/to-http?X-Signature=2`,
        join(dir, 'out', 'plain.stl'),
      ]);
      const { got, refused } = JSON.parse(stdout) as { got: { bytes: number }; refused: string };
      expect(got.bytes).toBe((await readFile(SCAN)).length);
      expect((await readFile(dest)).equals(await readFile(SCAN))).toBe(true);
      expect(refused).toMatch(/redirected \(307\) from https to http:\/\/127\.0\.0\.1:\d+\/bucket\/m\.stl;/);
      expect(plainRequests).toBe(0);
      expect(storage.authHeaders).toBe(0);
    } finally {
      await new Promise<void>((resolve) => redirector.close(() => resolve()));
      await new Promise<void>((resolve) => plain.close(() => resolve()));
    }
  });
});
