import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { silentLogger, type Logger } from '../logging/logger.js';
import { privateDir } from '../platform/private-files.js';
import { createOwnedTempFolder, type OwnedTempFolder } from '../platform/temp-folders.js';
import type { Processor } from './processor.js';
import { FaultInjector, type FaultOptions } from './server/faults.js';
import { JobStore } from './server/job-store.js';
import { JobProcessing } from './server/processing.js';
import { Presigner } from './server/presign.js';
import { ProtocolServer, type EngineStats } from './server/protocol-server.js';
import { TokenIssuer } from './server/tokens.js';

export type { FaultOptions, EndpointKind } from './server/faults.js';
export type { EngineStats } from './server/protocol-server.js';

export interface LocalEngineOptions {
  processor: Processor;
  /** 0 or absent: a random free port. */
  port?: number;
  /**
   * Where jobs and their files are kept (and found again after a restart), made private to the user;
   * absent: a temporary folder of this process, removed on close (and by a later process if this one
   * is killed).
   */
  dataDir?: string;
  faults?: FaultOptions;
  clientId?: string;
  /** Absent: a random secret, readable from the returned engine. */
  clientSecret?: string;
  audience?: string;
  /** The version segment of the base address (default 24.06); v2 and older create jobs at /generic-job. */
  version?: string;
  logger?: Logger;
  /** A job stays in processing at least this long. */
  processingDelayMs?: number;
  /**
   * A poll of a processing job is held until the job ends or this long has passed (default 0: answered
   * at once, as a remote service does). The app's engine holds polls, so that a finished job is
   * known at once rather than at the next poll.
   */
  pollHoldMs?: number;
  /** Jobs processed at the same time (default 1: segmentation uses the cores it gets). */
  concurrency?: number;
  /** Jobs older than this are deleted with their files when the engine starts (default 7 days). */
  retentionMs?: number;
}

export interface RunningEngine {
  /** http://127.0.0.1:PORT/<version> */
  baseUrl: string;
  /** http://127.0.0.1:PORT/auth; the token endpoint is {authUrl}/oauth/token */
  authUrl: string;
  audience: string;
  clientId: string;
  clientSecret: string;
  port: number;
  stats: EngineStats;
  setFaults(faults: FaultOptions): void;
  /** Every token issued so far stops working (the next call with one gets 401). */
  expireTokens(): void;
  /**
   * Not part of the service interface, which has no cancel: the app, which runs this engine, says
   * when a job's result is no longer wanted here (its job was canceled, or its meshes are saved).
   * Processing stops, and the job's folder goes with the copies of the scan and meshes in it; a poll
   * of it is then answered 404. Unknown ids are ignored.
   */
  discard(jobId: string): Promise<void>;
  close(): Promise<void>;
}

/** What a ServiceClient needs to talk to a running engine. */
export function engineCredentials(e: RunningEngine): {
  baseUrl: string;
  authUrl: string;
  audience: string;
  clientId: string;
  clientSecret: string;
} {
  return {
    baseUrl: e.baseUrl,
    authUrl: e.authUrl,
    audience: e.audience,
    clientId: e.clientId,
    clientSecret: e.clientSecret,
  };
}

/** The engine's folder: the one given, made private, or a new temporary one of this process. */
async function engineFolder(dataDir: string | undefined): Promise<{ dir: string; temp?: OwnedTempFolder }> {
  if (dataDir !== undefined) {
    await privateDir(dataDir);
    return { dir: dataDir };
  }
  const temp = await createOwnedTempFolder('scan2mesh-engine-');
  return { dir: temp.path, temp };
}

const LOCAL_ENGINE_CLIENT_ID = 'scan2mesh-local';
const LOCAL_ENGINE_AUDIENCE = 'scan2mesh-local-engine';

/**
 * The local engine: the service interface on 127.0.0.1, so that the app works offline and before an
 * account exists, and so that the client is tested against real HTTP.
 */
export async function startLocalEngine(opts: LocalEngineOptions): Promise<RunningEngine> {
  const logger = opts.logger ?? silentLogger;
  const { dir, temp } = await engineFolder(opts.dataDir);
  const store = new JobStore(dir, logger);
  await store.load(opts.retentionMs ?? 7 * 24 * 3600_000);

  const config = {
    version: opts.version ?? '24.06',
    clientId: opts.clientId ?? LOCAL_ENGINE_CLIENT_ID,
    clientSecret: opts.clientSecret ?? randomBytes(24).toString('base64url'),
    audience: opts.audience ?? LOCAL_ENGINE_AUDIENCE,
    authPath: '/auth',
    pollHoldMs: opts.pollHoldMs ?? 0,
  };
  if (!/^[A-Za-z0-9._-]+$/.test(config.version))
    throw new Error(`invalid engine version segment: ${config.version}`);
  const stats: EngineStats = {
    requests: 0,
    tokenRequests: 0,
    tokensIssued: 0,
    jobRequests: 0,
    jobsCreated: 0,
    uploads: 0,
    notifies: 0,
    polls: 0,
    downloads: 0,
    unauthorized: 0,
    authHeaderOnPresigned: 0,
  };
  const faults = new FaultInjector(opts.faults);
  const tokens = new TokenIssuer();
  let origin = '';
  const processing = new JobProcessing({
    store,
    processor: opts.processor,
    logger,
    minProcessingMs: opts.processingDelayMs ?? 0,
    concurrency: opts.concurrency ?? 1,
    // Called only after jobs finish, long after `protocol` below exists.
    onFinished: (job) => protocol.sendWebhook(job),
  });
  const protocol = new ProtocolServer({
    config,
    store,
    processing,
    processor: opts.processor,
    tokens,
    presigner: new Presigner(randomBytes(32)),
    faults,
    stats,
    logger,
    origin: () => origin,
  });
  const server = createServer({ keepAliveTimeout: 30_000 }, protocol.handle);
  server.on('checkContinue', protocol.handleContinue);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    // A port in use: no engine, so no folder of its own either.
    await temp?.remove();
    throw e;
  }
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  for (const job of store.all()) processing.resume(job);
  // An engine is started when a job is about to come: the processor starts getting ready now, while
  // the client prepares the job (for the command line, while the scan is read and packed).
  processing.prepare();
  logger.info('local engine listening', { origin, version: config.version });

  let closing: Promise<void> | undefined;
  return {
    baseUrl: protocol.baseUrl,
    authUrl: protocol.authUrl,
    audience: config.audience,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    port,
    stats,
    setFaults: (f) => faults.set(f),
    expireTokens: () => tokens.expireAll(),
    async discard(jobId) {
      if (!store.get(jobId)) return;
      await processing.stop(jobId);
      await store.remove(jobId);
      logger.info('engine job discarded', { jobId });
    },
    close: () =>
      (closing ??= (async () => {
        await processing.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await temp?.remove();
      })()),
  };
}
