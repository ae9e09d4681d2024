import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { jobCreationPath, JobBodySchema } from '../../../src-shared/job-spec.js';
import { resultBodyOf } from './result-body.js';
import type { Logger } from '../../logging/logger.js';
import type { Processor } from '../processor.js';
import { postJson } from './client-storage.js';
import type { EndpointKind, FaultInjector } from './faults.js';
import { BodyError, readJsonBody, reply, replyError, replyJson } from './http-util.js';
import type { EngineJob, JobStore } from './job-store.js';
import type { JobProcessing } from './processing.js';
import type { Presigner } from './presign.js';
import { StorageEndpoints } from './storage-endpoints.js';
import { answerTokenRequest } from './token-endpoint.js';
import type { TokenIssuer } from './tokens.js';

export interface EngineStats {
  requests: number;
  /** Requests to the token endpoint, refused ones included. */
  tokenRequests: number;
  tokensIssued: number;
  /** Job creation requests, those refused or reset by injected faults included. */
  jobRequests: number;
  jobsCreated: number;
  uploads: number;
  notifies: number;
  polls: number;
  downloads: number;
  /** Answers 401 to service calls. */
  unauthorized: number;
  /** Requests to pre-signed addresses that carried an Authorization header: must stay 0. */
  authHeaderOnPresigned: number;
}

interface ProtocolConfig {
  version: string;
  clientId: string;
  clientSecret: string;
  audience: string;
  /** Path of the identity provider on this server; the token endpoint is {authPath}/oauth/token. */
  authPath: string;
  /** A poll of a processing job is answered when the job ends or changes stage, or after this long (0: at once). */
  pollHoldMs: number;
}

interface ProtocolDeps {
  config: ProtocolConfig;
  store: JobStore;
  processing: JobProcessing;
  processor: Processor;
  tokens: TokenIssuer;
  presigner: Presigner;
  faults: FaultInjector;
  stats: EngineStats;
  logger: Logger;
  /** http://127.0.0.1:PORT, known once the server listens. */
  origin: () => string;
}

type Route =
  | { kind: 'token' | 'job' | 'poll' | 'testAuth' }
  | { kind: 'notify' | 'upload'; jobId: string; input: string }
  | { kind: 'download'; jobId: string; index: number };

const ALLOWED: Record<EndpointKind, string[]> = {
  token: ['POST'],
  job: ['POST'],
  upload: ['PUT'],
  notify: ['PUT', 'POST'],
  poll: ['GET'],
  download: ['GET'],
  testAuth: ['GET'],
};

const DEFAULT_PRESIGNED_LIFETIME_S = 3_600;

/**
 * The service interface (service-interface.md §4, §5) on this computer: token endpoint, job creation,
 * pre-signed uploads and downloads, notify, poll and testAuth, with faults injectable for tests.
 */
export class ProtocolServer {
  private readonly servicePrefix: string;
  private readonly storage: StorageEndpoints;

  constructor(private readonly deps: ProtocolDeps) {
    this.servicePrefix = `/${deps.config.version}`;
    this.storage = new StorageEndpoints(deps);
  }

  get baseUrl(): string {
    return `${this.deps.origin()}${this.servicePrefix}`;
  }

  get authUrl(): string {
    return `${this.deps.origin()}${this.deps.config.authPath}`;
  }

  /** The request handler for http.createServer. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => this.serve(req, res, false);

  /**
   * The handler for the server's 'checkContinue' event (a request with "Expect: 100-continue"): the
   * engine decides on its faults before it sends "100 Continue", so that a reset injected "before the
   * body" really comes before the client has sent any of it.
   */
  readonly handleContinue = (req: IncomingMessage, res: ServerResponse): void => this.serve(req, res, true);

  private serve(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): void {
    this.dispatch(req, res, expectsContinue).catch((e: unknown) => {
      this.deps.logger.error('engine request failed', { error: e instanceof Error ? e.message : String(e) });
      if (!res.headersSent) void replyJson(res, 500, { message: 'internal error of the local engine' });
      else res.destroy();
    });
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): Promise<void> {
    const { stats, faults, logger } = this.deps;
    stats.requests++;
    const url = new URL(req.url ?? '/', 'http://engine.invalid');
    const method = req.method ?? 'GET';
    const route = this.route(url.pathname);
    logger.debug('engine request', { method, path: url.pathname });
    if (!route) return replyError(res, 404, `No such address: ${url.pathname}`);
    if (route.kind === 'job') stats.jobRequests++;
    if (!ALLOWED[route.kind].includes(method)) {
      return replyError(res, 405, `${method} is not allowed here.`, {
        Allow: ALLOWED[route.kind].join(', '),
      });
    }
    const presigned = route.kind === 'upload' || route.kind === 'download';
    if (presigned && req.headers.authorization !== undefined) {
      // Storage refuses a second way of signing in; a client that sends its token here leaks it.
      stats.authHeaderOnPresigned++;
      return replyError(
        res,
        400,
        'Only one auth mechanism allowed: pre-signed addresses take no Authorization header.',
        {
          Connection: 'close',
        },
      );
    }
    if (faults.takeResetBeforeBody(route.kind)) {
      // Injected fault: the connection dies before any of the body is read (nothing is created).
      req.socket.destroy();
      return;
    }
    if (faults.take500(route.kind))
      return replyError(res, 500, 'Injected fault: internal error.', closeIfUpload(route));
    if (faults.take502(route.kind))
      return replyError(res, 502, 'Injected fault: bad gateway.', closeIfUpload(route));
    const retryAfter = faults.take429(route.kind);
    if (retryAfter !== undefined)
      return replyError(res, 429, 'Injected fault: too many requests.', {
        'Retry-After': String(retryAfter),
        ...closeIfUpload(route),
      });
    // The injected refusals above come before "100 Continue", as from a gateway or a service that
    // refuses a request before reading it: a client that waits for it has sent no body.
    if (expectsContinue) res.writeContinue();
    if (!presigned && route.kind !== 'token') {
      const check = faults.options.rejectAllTokens
        ? 'unknown'
        : this.deps.tokens.check(req.headers.authorization);
      if (check !== 'ok') {
        stats.unauthorized++;
        return replyError(res, 401, 'Unauthorized', { 'WWW-Authenticate': `Bearer error="invalid_token"` });
      }
    }
    switch (route.kind) {
      case 'token': {
        const { status, body } = await answerTokenRequest(req, this.deps);
        return this.replyJson(res, 'token', status, body);
      }
      case 'job':
        return this.createJob(req, res);
      case 'upload':
        return this.storage.upload(req, res, url, route.jobId, route.input);
      case 'notify':
        return this.notify(req, res, route.jobId, route.input);
      case 'poll':
        return this.poll(res, url);
      case 'testAuth':
        return this.replyJson(res, 'testAuth', 200, ['Authentication successful: scan2mesh local engine']);
      case 'download':
        return this.storage.download(req, res, url, route.jobId, route.index);
    }
  }

  private route(pathname: string): Route | null {
    const { authPath, version } = this.deps.config;
    if (pathname === `${authPath}/oauth/token`) return { kind: 'token' };
    const storage = /^\/storage\/([0-9a-f-]{36})\/(inputs|outputs)\/([^/]+)(?:\/[^/]+)?$/.exec(pathname);
    if (storage) {
      const [, jobId, dir, name] = storage as unknown as [string, string, string, string];
      if (dir === 'inputs') return { kind: 'upload', jobId, input: decodeURIComponent(name) };
      return /^\d+$/.test(name) ? { kind: 'download', jobId, index: Number(name) } : null;
    }
    if (!pathname.startsWith(`${this.servicePrefix}/`)) return null;
    const rest = pathname.slice(this.servicePrefix.length);
    if (rest === jobCreationPath(version)) return { kind: 'job' };
    if (rest === '/pollJobResults') return { kind: 'poll' };
    if (rest === '/testAuth') return { kind: 'testAuth' };
    const notify = /^\/notifyFinishUpload\/([0-9a-f-]{36})\/([^/]+)$/.exec(rest);
    if (notify)
      return { kind: 'notify', jobId: notify[1] as string, input: decodeURIComponent(notify[2] as string) };
    return null;
  }

  private async createJob(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { store, processor, processing, stats } = this.deps;
    let body: unknown;
    try {
      body = await readJsonBody(req);
    } catch (e) {
      if (!(e instanceof BodyError)) throw e;
      return replyError(res, e.status, e.message);
    }
    const parsed = JobBodySchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return replyError(
        res,
        400,
        `Invalid job body: ${issue ? `${issue.path.join('.')}: ${issue.message}` : ''}`,
      );
    }
    const inputs = Object.entries(parsed.data.inputFiles).map(([name, spec]) => ({ name, ...spec }));
    const meshes = parsed.data.outputFiles.meshes;
    const problem = processor.validate({
      inputs: inputs.map((i) => ({ name: i.name, extension: i.extension })),
      meshes: meshes.map((m) => ({ extension: m.extension, structures: m.structures })),
    });
    if (problem) return replyError(res, 400, problem);
    const id = randomUUID();
    const dir = store.jobDir(id);
    const job: EngineJob = {
      id,
      createdAt: Date.now(),
      state: 'awaiting-input',
      inputs: inputs.map((i) => ({
        name: i.name,
        extension: i.extension,
        ...(i.downloadUrl ? { downloadUrl: i.downloadUrl } : {}),
        path: join(dir, 'inputs', `${safeSegment(i.name)}${i.extension}`),
        uploaded: false,
        notified: false,
      })),
      meshes: meshes.map((m) => ({
        extension: m.extension,
        structures: m.structures,
        ...(m.uploadUrl ? { uploadUrl: m.uploadUrl } : {}),
      })),
      options: parsed.data.options ?? {},
      ...(parsed.data.finishWebhook ? { finishWebhook: parsed.data.finishWebhook } : {}),
      progress: { fraction: 0, stage: 'awaiting input' },
    };
    await store.add(job);
    stats.jobsCreated++;
    // The upload takes a while: the processor gets ready meanwhile instead of after it.
    processing.prepare();
    processing.fetchRemoteInputs(job);
    const presignedUploadUrl: Record<string, { presignedUploadUrl: string; notifyFinishUploadUrl: string }> =
      {};
    for (const input of job.inputs) {
      if (input.downloadUrl) continue;
      const name = encodeURIComponent(input.name);
      presignedUploadUrl[input.name] = {
        presignedUploadUrl: this.presign('PUT', `/storage/${id}/inputs/${name}`),
        notifyFinishUploadUrl: `${this.baseUrl}/notifyFinishUpload/${id}/${name}`,
      };
    }
    this.deps.logger.info('engine job created', { jobId: id });
    return this.replyJson(res, 'job', 200, { jobId: id, presignedUploadUrl });
  }

  private async notify(
    req: IncomingMessage,
    res: ServerResponse,
    jobId: string,
    inputName: string,
  ): Promise<void> {
    req.resume();
    if (req.method === 'PUT' && this.deps.faults.options.notifyPostOnly)
      return replyError(res, 405, 'Use POST to notify.', { Allow: 'POST' });
    const job = this.deps.store.get(jobId);
    const input = job?.inputs.find((i) => i.name === inputName && !i.downloadUrl);
    if (!job || !input) return replyError(res, 404, `No upload "${inputName}" for job ${jobId}.`);
    if (job.state === 'awaiting-input') {
      if (!input.uploaded) return replyError(res, 409, `The input "${inputName}" has not been uploaded yet.`);
      input.notified = true;
      await this.deps.store.save(job);
      await this.deps.processing.maybeStart(job);
    }
    this.deps.stats.notifies++;
    return this.replyJson(res, 'notify', 200, { message: `Upload of "${inputName}" registered.` });
  }

  private async poll(res: ServerResponse, url: URL): Promise<void> {
    const jobId = url.searchParams.get('jobId');
    if (!jobId) return replyError(res, 400, 'The query parameter jobId is required.');
    this.deps.stats.polls++;
    const job = this.deps.store.get(jobId);
    if (!job) return replyError(res, 404, `No job ${jobId}.`);
    if (job.state === 'processing') {
      // Held, as a long poll: on this computer the client is waiting for the result, and the end of
      // the job (or its next stage) answers it at once instead of at the client's next poll.
      await this.deps.processing.changedOrAfter(jobId, this.deps.config.pollHoldMs);
      if (res.destroyed) return;
    }
    if (job.state === 'awaiting-input' || job.state === 'processing') {
      const after = this.deps.faults.options.pollRetryAfterSeconds;
      return reply(
        res,
        202,
        'PROCESSING',
        'text/plain; charset=utf-8',
        {
          'X-Progress': job.progress.fraction.toFixed(3),
          'X-Stage': encodeURIComponent(job.progress.stage),
          ...(after !== undefined ? { 'Retry-After': String(after) } : {}),
        },
        this.deps.faults.bodyFaults('poll'),
      );
    }
    return this.replyJson(res, 'poll', 200, this.resultBody(job));
  }

  /** §2.3, with fresh download addresses each time; also the webhook's body. */
  resultBody(job: EngineJob): Record<string, unknown> {
    return resultBodyOf(job, this.deps.faults.options, (method, path) => this.presign(method, path));
  }

  /** The finish webhook, best effort: polling stays the way the app learns of completion. */
  sendWebhook(job: EngineJob): void {
    if (!job.finishWebhook) return;
    postJson(job.finishWebhook, this.resultBody(job)).catch((e: unknown) =>
      this.deps.logger.warn('engine webhook failed', { jobId: job.id, error: String(e) }),
    );
  }

  private presign(method: 'GET' | 'PUT', path: string): string {
    const lifetime = this.deps.faults.options.presignedLifetimeSeconds ?? DEFAULT_PRESIGNED_LIFETIME_S;
    return this.deps.presigner.sign(method, this.deps.origin(), path, lifetime);
  }

  private replyJson(res: ServerResponse, kind: EndpointKind, status: number, value: unknown): Promise<void> {
    if (status === 200 && this.deps.faults.takeAnswerLost(kind))
      return replyError(res, 504, 'Injected fault: the gateway timed out waiting for the service.');
    const malformed = status === 200 && this.deps.faults.takeMalformed(kind);
    return replyJson(res, status, value, {}, { ...this.deps.faults.bodyFaults(kind), malformed });
  }
}

function closeIfUpload(route: Route): Record<string, string> {
  // Answering before a large upload is read: close, rather than read the rest of it for nothing.
  return route.kind === 'upload' ? { Connection: 'close' } : {};
}

function safeSegment(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'input';
}
