import type { ServerResponse } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { AppError } from '../../src-shared/errors.js';
import { createMemoryLogger } from '../logging/memory-logger.test-support.js';
import { closeRecordingServers, recordingServer, type Seen } from './recording-server.test-support.js';
import { ServiceClient } from './service-client.js';
import { SPIDER_STL } from './test-engine.test-support.js';

/**
 * What the tests of transfers to and from pre-signed addresses share (transfers*.test.ts): storage
 * stand-ins on loopback that record every request, a client that retries quickly, and a folder for
 * what is downloaded.
 */
export interface Storage {
  origin: string;
  seen: Seen[];
}

/** A storage stand-in on loopback that records every request (with its body) before `script` answers. */
export async function storage(
  script: (req: Seen, res: ServerResponse, self: Storage) => void,
): Promise<Storage> {
  const self: Storage = { origin: '', seen: [] };
  const srv = await recordingServer((req, res) => script(req, res, self));
  self.origin = srv.origin;
  self.seen = srv.seen;
  return self;
}

export const redirect = (res: ServerResponse, status: number, location: string): void =>
  void res.writeHead(status, { Location: location, 'Content-Length': 0 }).end();

export const MAX_ATTEMPTS = 3;

/** A client whose service is at `baseUrl` (by default nowhere: only its transfers are used). */
export function client(baseUrl = 'http://127.0.0.1:9/24.06', authUrl = 'http://127.0.0.1:9/auth') {
  const logger = createMemoryLogger();
  const c = new ServiceClient({
    baseUrl,
    authUrl,
    audience: 'test',
    clientId: 'test',
    clientSecret: 'test',
    logger,
    retry: { maxAttempts: MAX_ATTEMPTS, baseDelayMs: 1, maxDelayMs: 2 },
    idleTimeoutMs: 5_000,
  });
  return { c, logs: logger.entries };
}

export async function failure(p: Promise<unknown>): Promise<AppError> {
  const e: unknown = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

export const gets = (s: Storage): string[] => s.seen.filter((r) => r.method === 'GET').map((r) => r.path);

/**
 * Registers the calling test file's hooks: storage stand-ins closed after each test, and a folder
 * (made before its tests, removed after them) with the spider mesh read. Call the getters in tests.
 */
export function transferTests(): { dir: () => string; spider: () => Buffer } {
  let dir = '';
  let spider = Buffer.alloc(0);
  afterEach(closeRecordingServers);
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'scan2mesh-transfers-'));
    spider = await readFile(SPIDER_STL);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return { dir: () => dir, spider: () => spider };
}
