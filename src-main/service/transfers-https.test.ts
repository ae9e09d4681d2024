import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { AppError } from '../../src-shared/errors.js';
import {
  makeSelfSignedCertificate,
  startHttpsStorage,
  type HttpsStorage,
  type TlsFiles,
} from './https-storage.test-support.js';
import { ServiceClient } from './service-client.js';
import { SCAN } from './test-engine.test-support.js';

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

function client(): ServiceClient {
  return new ServiceClient(clientOptions());
}

async function failure(p: Promise<unknown>): Promise<AppError> {
  const e: unknown = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
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
    const serviceClient = fileURLToPath(new URL('./service-client.ts', import.meta.url));
    const dest = join(dir, 'out', 'scan.dcm');
    await copyFile(SCAN, join(dir, 'chunked-scan.dcm'));
    const script = `
      const { ServiceClient } = await import(${JSON.stringify(serviceClient)});
      const c = new ServiceClient(JSON.parse(process.argv[1]));
      await c.upload(process.argv[2], process.argv[3]);
      const got = await c.download(process.argv[4], process.argv[5], {});
      // Without a length: the socket path hands it to the http module.
      await c.download(process.argv[6], process.argv[7], {});
      c.close();
      process.stdout.write(JSON.stringify(got));
    `;
    const options = clientOptions();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
        JSON.stringify(options),
        storage.uploadUrl('scan.dcm'),
        SCAN,
        storage.downloadUrl('scan.dcm'),
        dest,
        storage.downloadUrl('chunked-scan.dcm'),
        join(dir, 'out', 'chunked.dcm'),
      ],
      { env: { ...process.env, NODE_EXTRA_CA_CERTS: tls.certPath } },
    );
    const scan = await readFile(SCAN);
    expect(JSON.parse(stdout)).toEqual({ path: dest, bytes: scan.length });
    expect((await readFile(join(dir, 'scan.dcm'))).equals(scan)).toBe(true);
    expect((await readFile(dest)).equals(scan)).toBe(true);
    expect((await readFile(join(dir, 'out', 'chunked.dcm'))).equals(scan)).toBe(true);
    expect(storage.authHeaders).toBe(0);
  });
});
