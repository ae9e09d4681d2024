import { createReadStream } from 'node:fs';
import { mkdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { IncomingHttpHeaders } from 'node:http';
import { randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { AppError } from '../../src-shared/errors.js';
import {
  buildJobBody,
  CreateJobResponseSchema,
  jobCreationPath,
  JobSpecSchema,
  PollResultSchema,
  type JobSpec,
  type PollResult,
} from '../../src-shared/job-spec.js';
import { serviceVersion } from '../../src-shared/profiles.js';
import { silentLogger, type Logger } from '../logging/logger.js';
import { redact } from '../logging/redact.js';
import {
  canceledError,
  createAgents,
  discard,
  readBody,
  retryAfterMs,
  send,
  TransportError,
  type Agents,
  type HttpResponse,
} from './http-transport.js';
import { createBatchedFileWriter, FileBatcher } from './batched-file-writer.js';
import { NotPlainBody, rawGetToFile } from './raw-download.js';
import { placeFile, type OnExists } from './output-files.js';
import {
  backoffDelay,
  DEFAULT_POLL,
  DEFAULT_RETRY,
  pollInterval,
  sleep,
  withJitter,
  type PollPolicy,
  type RetryPolicy,
} from './retry.js';
import { runJob, type RunJobHooks, type RunJobResult } from './run-job.js';
import {
  checkFinished,
  describeDuration,
  describeIssues,
  jobMayExist,
  messageOf,
  networkError,
  PresignedRefusedError,
  Transient,
} from './service-errors.js';

export { checkFinished, PresignedRefusedError } from './service-errors.js';
import { TokenManager } from './token-manager.js';
import { joinUrl, parseTransportUrl, safeUrl, sameOrigin } from './url-policy.js';

export interface ServiceClientOptions {
  /** Service address with the version segment, e.g. https://eu.virtualpatientengine.com/24.06 */
  baseUrl: string;
  /** Identity provider; the token endpoint is {authUrl}/oauth/token */
  authUrl: string;
  audience: string;
  clientId: string;
  clientSecret: string;
  logger?: Logger;
  retry?: Partial<RetryPolicy>;
  poll?: Partial<PollPolicy>;
  /** Socket inactivity after which a call fails (and is retried when that is safe). Default 60 s. */
  idleTimeoutMs?: number;
  /**
   * Downloads from plain-http (loopback) addresses over a bare socket, twice as fast as the http
   * module on a busy machine (raw-download.ts). Default true; false sends them through the http module.
   */
  fastLoopbackDownloads?: boolean;
  /** How long POST /job waits for "100 Continue" before it sends its body anyway. Default 1 s (as curl). */
  expectContinueMs?: number;
}

export interface CreatedJob {
  jobId: string;
  /** One per input to upload directly; inputs with a client-hosted downloadUrl have none. */
  uploads: { input: string; uploadUrl: string; notifyUrl: string }[];
}

export type PollState =
  | {
      state: 'processing';
      retryAfterMs?: number;
      /** 0..1, when the service tells (the local engine does). */ progress?: number;
      /** What it is doing, in its words, when it tells (X-Stage; the local engine does). */
      stage?: string;
    }
  | { state: 'finished'; result: PollResult };

export interface TransferOptions {
  onProgress?: (done: number, total: number | undefined) => void;
  signal?: AbortSignal;
}

export interface DownloadOptions extends TransferOptions {
  /** `size` from the poll result; the file is refused when the bytes differ. */
  expectedSize?: number;
  /** Default 'rename': an existing file is kept and the download gets "name (2).ext". */
  onExists?: OnExists;
}

const TestAuthSchema = z.array(z.string()).min(1);
const CHECK_CREDENTIALS = 'Check the client id, client secret and audience of the connection.';
const UPLOAD_CHUNK = 1024 * 1024;
/** Socket reads gathered into one file write (see batched-file-writer.ts). */
const DOWNLOAD_BATCH = 1024 * 1024;
/** A Retry-After on a running job is honoured up to this, so that a client never sleeps for a day. */
const MAX_POLL_WAIT_MS = 10 * 60_000;

interface AuthedCall {
  label: string;
  method: 'GET' | 'POST' | 'PUT';
  url: URL;
  body?: Buffer;
  /** False for POST /job: an answer that may have been lost must not lead to a second job. */
  idempotent: boolean;
  /** Send the body only after "100 Continue", so that a connection lost before it is known to be harmless. */
  expectContinue?: boolean;
  signal?: AbortSignal | undefined;
}

/**
 * The client of the segmentation service (service-interface.md). Each step is its own public method
 * so that a job queue can persist between them; runJob() chains them for the command line.
 */
export class ServiceClient {
  readonly baseUrl: URL;
  readonly version: string;
  private readonly tokens: TokenManager;
  private readonly agents: Agents;
  private readonly logger: Logger;
  private readonly retry: RetryPolicy;
  private readonly poll: PollPolicy;
  private readonly idleTimeoutMs: number;
  private readonly fastLoopbackDownloads: boolean;
  private readonly expectContinueMs: number;

  constructor(opts: ServiceClientOptions) {
    this.logger = opts.logger ?? silentLogger;
    this.baseUrl = configUrl(opts.baseUrl, 'The service address');
    const version = serviceVersion(this.baseUrl.href);
    if (!version)
      throw new AppError('bad-input', 'The service address has no version segment.', {
        action: 'Write it with the version, e.g. https://eu.virtualpatientengine.com/24.06',
      });
    this.version = version;
    const authUrl = configUrl(opts.authUrl, 'The sign-in address');
    for (const [name, value] of [
      ['audience', opts.audience],
      ['client id', opts.clientId],
      ['client secret', opts.clientSecret],
    ] as const) {
      if (!value)
        throw new AppError('bad-input', `The connection has no ${name}.`, { action: CHECK_CREDENTIALS });
    }
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.poll = { ...DEFAULT_POLL, ...opts.poll };
    this.idleTimeoutMs = opts.idleTimeoutMs ?? 60_000;
    this.fastLoopbackDownloads = opts.fastLoopbackDownloads ?? true;
    this.expectContinueMs = opts.expectContinueMs ?? 1_000;
    this.agents = createAgents();
    this.tokens = new TokenManager({
      tokenUrl: joinUrl(authUrl, '/oauth/token'),
      audience: opts.audience,
      clientId: opts.clientId,
      clientSecret: opts.clientSecret,
      agents: this.agents,
      retry: this.retry,
      idleTimeoutMs: this.idleTimeoutMs,
      logger: this.logger.child('token'),
    });
  }

  /** Token requests sent so far (attempts included). */
  get tokenRequests(): number {
    return this.tokens.requests;
  }

  /** GET /testAuth: the service's message that authentication succeeded. */
  async testAuth(signal?: AbortSignal): Promise<string> {
    const call: AuthedCall = {
      label: 'Connection test',
      method: 'GET',
      url: joinUrl(this.baseUrl, '/testAuth'),
      idempotent: true,
      signal,
    };
    return this.authed(call, async (res) => {
      if (res.status !== 200) throw await this.unexpected(call, res);
      const parsed = TestAuthSchema.safeParse(await this.readJson(call, res));
      if (!parsed.success) throw this.badShape(call, parsed.error);
      return parsed.data[0] as string;
    });
  }

  /**
   * POST /job (or /generic-job on v2 and older). Repeated when it surely created nothing (an answer
   * 429 or 5xx, or a connection lost before its body went out); never once it may have reached the
   * service without an answer coming back ('job-may-exist').
   */
  async createJob(spec: JobSpec, signal?: AbortSignal): Promise<CreatedJob> {
    const checked = JobSpecSchema.safeParse(spec);
    if (!checked.success)
      throw new AppError('bad-input', `The job is not valid: ${describeIssues(checked.error)}`, {
        action: 'Fix the job settings and submit again.',
      });
    const call: AuthedCall = {
      label: 'Job creation',
      method: 'POST',
      url: joinUrl(this.baseUrl, jobCreationPath(this.version)),
      body: Buffer.from(JSON.stringify(buildJobBody(checked.data))),
      idempotent: false,
      expectContinue: true,
      signal,
    };
    const created = await this.authed(call, async (res) => {
      if (res.status < 200 || res.status >= 300) throw await this.unexpected(call, res);
      const parsed = CreateJobResponseSchema.safeParse(await this.readJson(call, res));
      if (!parsed.success)
        throw jobMayExist(
          `the answer to the job request lacks what it must hold (${describeIssues(parsed.error)})`,
        );
      return parsed.data;
    });
    const jobId = created.jobId;
    const uploads: CreatedJob['uploads'] = [];
    for (const [input, inputSpec] of Object.entries(checked.data.inputs)) {
      if (inputSpec.downloadUrl) continue;
      const entry = created.presignedUploadUrl?.[input];
      if (!entry)
        throw new AppError(
          'service',
          `Job ${jobId} was created without an upload address for the input "${input}".`,
          {
            action: 'The service may not support this input; check the input kind and extension.',
          },
        );
      const uploadUrl = parseTransportUrl(entry.presignedUploadUrl, `The upload address for "${input}"`);
      const notifyUrl = parseTransportUrl(entry.notifyFinishUploadUrl, `The notify address for "${input}"`);
      this.checkTokenDestination(notifyUrl, `job ${jobId}`);
      uploads.push({ input, uploadUrl: uploadUrl.href, notifyUrl: notifyUrl.href });
    }
    this.logger.info('job created', { jobId, uploads: uploads.length });
    return { jobId, uploads };
  }

  /** PUT of a file to a pre-signed address, streamed from disk; never with an Authorization header. */
  async upload(uploadUrl: string, filePath: string, opts: TransferOptions = {}): Promise<void> {
    const url = parseTransportUrl(uploadUrl, 'The upload address');
    const size = await fileSize(filePath);
    await this.presignedCall('upload', url, opts.signal, async () => {
      let sentBytes = 0;
      opts.onProgress?.(0, size);
      const res = await send({
        method: 'PUT',
        url,
        headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': size },
        bodyStream: () => {
          const stream = createReadStream(filePath, { highWaterMark: UPLOAD_CHUNK });
          stream.on('data', (chunk) => {
            sentBytes += chunk.length;
            opts.onProgress?.(sentBytes, size);
          });
          return stream;
        },
        agents: this.agents,
        signal: opts.signal,
        idleTimeoutMs: this.idleTimeoutMs,
      });
      if (res.status >= 200 && res.status < 300) {
        discard(res);
        return 'done' as const;
      }
      return res;
    });
    this.logger.info('uploaded', { url: safeUrl(url), bytes: size });
  }

  /** Tells the service an upload is complete: PUT, and once as POST if the service answers 405. */
  async notify(notifyUrl: string, signal?: AbortSignal): Promise<void> {
    const url = parseTransportUrl(notifyUrl, 'The notify address');
    this.checkTokenDestination(url, 'the upload notification');
    let method: 'PUT' | 'POST' = 'PUT';
    for (;;) {
      const call: AuthedCall = { label: 'Upload notification', method, url, idempotent: true, signal };
      const outcome = await this.authed(call, async (res) => {
        if (res.status >= 200 && res.status < 300) {
          discard(res);
          return 'done' as const;
        }
        if (res.status === 405 && method === 'PUT') {
          discard(res);
          return 'retry-as-post' as const;
        }
        throw await this.unexpected(call, res);
      });
      if (outcome === 'done') return;
      this.logger.info('notify: PUT not allowed, sending POST');
      method = 'POST';
    }
  }

  /** One GET /pollJobResults. Throws 'job-failed' for success: false or an output that is not Available. */
  async pollOnce(jobId: string, signal?: AbortSignal): Promise<PollState> {
    const call: AuthedCall = {
      label: 'Result poll',
      method: 'GET',
      url: joinUrl(this.baseUrl, '/pollJobResults', { jobId }),
      idempotent: true,
      signal,
    };
    return this.authed<PollState>(call, async (res) => {
      if (res.status === 202) {
        // The body is the text PROCESSING; it carries nothing else, so it is not parsed.
        await readBody(res, 64 * 1024);
        const state: PollState = { state: 'processing' };
        const after = retryAfterMs(res.headers);
        if (after !== undefined) state.retryAfterMs = after;
        const progress = Number(res.headers['x-progress']);
        if (res.headers['x-progress'] !== undefined && progress >= 0 && progress <= 1)
          state.progress = progress;
        const stage = stageHeader(res.headers['x-stage']);
        if (stage) state.stage = stage;
        return state;
      }
      if (res.status === 404) {
        discard(res);
        throw new AppError('service', `The service does not know job ${jobId} (404).`, {
          action: 'The job may have expired on the service; submit the scan again.',
        });
      }
      if (res.status !== 200) throw await this.unexpected(call, res);
      const parsed = PollResultSchema.safeParse(await this.readJson(call, res));
      if (!parsed.success) throw this.badShape(call, parsed.error);
      checkFinished(jobId, parsed.data);
      return { state: 'finished', result: parsed.data };
    });
  }

  /** Polls until the job finishes: about 2 s at first, backing off to about 30 s, Retry-After first. */
  async waitForResult(
    jobId: string,
    opts: { onPoll?: (s: PollState) => void; signal?: AbortSignal } = {},
  ): Promise<PollResult> {
    for (let n = 0; ; n++) {
      const s = await this.pollOnce(jobId, opts.signal);
      opts.onPoll?.(s);
      if (s.state === 'finished') return s.result;
      const wait =
        s.retryAfterMs !== undefined
          ? Math.min(s.retryAfterMs, MAX_POLL_WAIT_MS)
          : withJitter(pollInterval(this.poll, n), this.poll.jitter);
      await sleep(wait, opts.signal);
    }
  }

  /**
   * GET of a pre-signed address into a temporary file beside destPath, checked against the expected
   * size, then moved into place. Returns the path used (see onExists) and the bytes.
   */
  async download(
    url: string,
    destPath: string,
    opts: DownloadOptions = {},
  ): Promise<{ path: string; bytes: number }> {
    const target = parseTransportUrl(url, 'The download address');
    await mkdir(dirname(destPath), { recursive: true });
    const tmp = join(dirname(destPath), `.${basename(destPath)}.${randomBytes(4).toString('hex')}.part`);
    let bytes = 0;
    let raw = this.fastLoopbackDownloads && target.protocol === 'http:';
    try {
      await this.presignedCall('download', target, opts.signal, async () => {
        bytes = 0;
        let got: { status: number; headers: IncomingHttpHeaders; bytes: number; detail?: string };
        if (raw) {
          try {
            got = await this.rawDownloadAttempt(target, tmp, opts);
          } catch (e) {
            if (!(e instanceof NotPlainBody)) throw e;
            // An answer shape the fast path leaves alone: the http module takes this download.
            raw = false;
            got = await this.moduleDownloadAttempt(target, tmp, opts);
          }
        } else {
          got = await this.moduleDownloadAttempt(target, tmp, opts);
        }
        if (got.status < 200 || got.status >= 300)
          return { status: got.status, headers: got.headers, detail: got.detail ?? '' };
        bytes = got.bytes;
        if (opts.expectedSize !== undefined && bytes !== opts.expectedSize)
          throw new Transient(
            new AppError(
              'service',
              `The downloaded file has ${bytes} bytes; the service said ${opts.expectedSize}.`,
              {
                action: 'Download it again; if it happens again, report it to the service operator.',
                retryable: true,
              },
            ),
          );
        return 'done' as const;
      });
      const path = await placeFile(tmp, destPath, opts.onExists ?? 'rename');
      this.logger.info('downloaded', { url: safeUrl(target), bytes });
      return { path, bytes };
    } catch (e) {
      await unlink(tmp).catch(() => {});
      throw e;
    }
  }

  /** One download over the fast path (plain http: the local engine). */
  private async rawDownloadAttempt(
    target: URL,
    tmp: string,
    opts: DownloadOptions,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; bytes: number; detail?: string }> {
    const batcher = await FileBatcher.create(tmp, DOWNLOAD_BATCH);
    try {
      let total: number | undefined = opts.expectedSize;
      opts.onProgress?.(0, total);
      const r = await rawGetToFile(target, batcher, {
        signal: opts.signal,
        idleTimeoutMs: this.idleTimeoutMs,
        onBytes: (n) => opts.onProgress?.(n, total),
      });
      total = r.bytes;
      return r.errorBody !== undefined ? { ...r, detail: errorDetailOf(r.errorBody) } : r;
    } finally {
      await batcher.close().catch(() => {});
    }
  }

  /** One download through Node's http module (https, and answers the fast path leaves alone). */
  private async moduleDownloadAttempt(
    target: URL,
    tmp: string,
    opts: DownloadOptions,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; bytes: number; detail?: string }> {
    const res = await send({
      method: 'GET',
      url: target,
      headers: { Accept: '*/*' },
      agents: this.agents,
      signal: opts.signal,
      idleTimeoutMs: this.idleTimeoutMs,
    });
    if (res.status < 200 || res.status >= 300)
      return { status: res.status, headers: res.headers, bytes: 0, detail: await this.errorDetail(res) };
    const header = res.headers['content-length'];
    const total = header !== undefined ? Number(header) : opts.expectedSize;
    let bytes = 0;
    opts.onProgress?.(0, total);
    const sink = createBatchedFileWriter(tmp, {
      batchBytes: DOWNLOAD_BATCH,
      onBytes: (n) => {
        bytes += n;
        opts.onProgress?.(bytes, total);
      },
    });
    try {
      await pipeline(res.body, sink);
    } catch (e) {
      if (opts.signal?.aborted) throw canceledError();
      throw new TransportError(`the download was cut off (${(e as Error).message})`, true, 'ECONNRESET');
    }
    if (header !== undefined && bytes !== Number(header))
      throw new TransportError(`the download ended after ${bytes} of ${header} bytes`, true, 'ECONNRESET');
    return { status: res.status, headers: res.headers, bytes };
  }

  /** The whole job for the command line: create, upload and notify each input, wait, download each mesh. */
  runJob(
    spec: JobSpec,
    inputFiles: Record<string, string>,
    outDir: string,
    hooks: RunJobHooks = {},
  ): Promise<RunJobResult> {
    return runJob(this, spec, inputFiles, outDir, hooks);
  }

  /** Closes pooled connections; the client is not used afterwards. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** The bearer token goes to the configured service's origin and nowhere else. */
  private checkTokenDestination(url: URL, what: string): void {
    if (!sameOrigin(url, this.baseUrl))
      throw new AppError(
        'service',
        `The service named ${url.origin} for ${what}, which is not the configured service (${this.baseUrl.origin}); the token is not sent there.`,
        { action: 'Check the service address of the connection.' },
      );
  }

  /**
   * A call with the bearer token: a 401 drops the token and repeats the call once with a new one;
   * connection errors, 5xx and 429 are retried with backoff when the call may be repeated.
   */
  private async authed<T>(call: AuthedCall, handle: (res: HttpResponse) => Promise<T>): Promise<T> {
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      const token = await this.tokens.get(call.signal);
      let failure: AppError;
      let wait: number | undefined;
      try {
        const res = await send({
          method: call.method,
          url: call.url,
          headers: {
            Authorization: `Bearer ${token}`,
            Accept: 'application/json, text/plain;q=0.9, */*;q=0.8',
            ...(call.body ? { 'Content-Type': 'application/json' } : {}),
          },
          ...(call.body ? { body: call.body } : {}),
          // A pooled socket the server has just closed fails after the request went out: a fresh
          // connection keeps "sent, no answer" meaning what it says for the call that must not repeat.
          agents: call.idempotent ? this.agents : false,
          signal: call.signal,
          idleTimeoutMs: this.idleTimeoutMs,
          ...(call.expectContinue ? { expectContinueMs: this.expectContinueMs } : {}),
        });
        this.logger.debug('service call', { call: call.label, url: safeUrl(call.url), status: res.status });
        if (res.status === 401) {
          discard(res);
          if (refreshed)
            throw new AppError(
              'auth-failed',
              `${call.label}: the service refused a freshly issued token (401).`,
              {
                action: CHECK_CREDENTIALS,
              },
            );
          this.tokens.invalidate(token);
          refreshed = true;
          attempt--;
          continue;
        }
        if (res.status === 417 && call.expectContinue) {
          // A server that refuses "Expect: 100-continue" has read no body: send it plainly.
          discard(res);
          call.expectContinue = false;
          attempt--;
          continue;
        }
        if (res.status === 429 || res.status >= 500) {
          wait = retryAfterMs(res.headers);
          const detail = await this.errorDetail(res);
          // An answer means the service took the request and refused it: no job was made, so POST /job
          // is repeated too (any 5xx, as the service's error answers promise: nothing is created).
          failure = new AppError('service', `${call.label}: the service answered ${res.status}${detail}.`, {
            action: 'Try again later.',
            retryable: true,
          });
        } else {
          return await handle(res);
        }
      } catch (e) {
        if (call.signal?.aborted) throw canceledError();
        if (e instanceof Transient) {
          if (!call.idempotent) throw jobMayExist(e.failure.message);
          failure = e.failure;
        } else if (e instanceof TransportError) {
          if (!call.idempotent && e.sent) throw jobMayExist(`no complete answer came (${e.message})`);
          failure = networkError(call.label, call.url, e);
        } else {
          throw e;
        }
      }
      await this.beforeRetry(call.label, attempt, failure, wait, call.signal);
    }
  }

  /** Upload or download with retries; `attempt` returns 'done' or a response that is not a success. */
  private async presignedCall(
    what: 'upload' | 'download',
    url: URL,
    signal: AbortSignal | undefined,
    attempt: () => Promise<'done' | HttpResponse | FailedAnswer>,
  ): Promise<void> {
    const label = what === 'upload' ? 'Upload' : 'Download';
    for (let n = 1; ; n++) {
      let failure: AppError;
      let wait: number | undefined;
      try {
        const res = await attempt();
        if (res === 'done') return;
        const detail = 'detail' in res ? res.detail : await this.errorDetail(res);
        if (res.status === 403) throw new PresignedRefusedError(what, res.status, detail);
        if (res.status !== 429 && res.status < 500)
          throw new AppError('service', `${label} refused by storage (${res.status}${detail}).`, {
            action: 'Submit the job again; if it happens again, report it to the service operator.',
          });
        wait = retryAfterMs(res.headers);
        failure = new AppError('service', `${label}: storage answered ${res.status}${detail}.`, {
          action: 'Try again later.',
          retryable: true,
        });
      } catch (e) {
        if (signal?.aborted) throw canceledError();
        if (e instanceof Transient) failure = e.failure;
        else if (e instanceof TransportError) failure = networkError(label, url, e);
        else throw e;
      }
      await this.beforeRetry(label, n, failure, wait, signal);
    }
  }

  private async beforeRetry(
    label: string,
    attempt: number,
    failure: AppError,
    retryAfter: number | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (attempt >= this.retry.maxAttempts) throw failure;
    if (retryAfter !== undefined && retryAfter > this.retry.maxRetryAfterMs)
      throw new AppError(
        'service',
        `${failure.message} It asks to wait ${describeDuration(retryAfter)} before trying again.`,
        { action: `Try again after ${new Date(Date.now() + retryAfter).toISOString()}.`, retryable: true },
      );
    const delay = retryAfter ?? backoffDelay(this.retry, attempt);
    this.logger.warn('retrying', { call: label, attempt, delayMs: delay, error: failure.message });
    await sleep(delay, signal);
  }

  private async readJson(call: AuthedCall, res: HttpResponse): Promise<unknown> {
    const text = (await readBody(res)).toString('utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Transient(
        new AppError('service', `${call.label}: the service answered with malformed JSON.`, {
          action: 'Try again later; if it persists, report it to the service operator.',
          retryable: true,
        }),
      );
    }
  }

  private badShape(call: AuthedCall, error: z.ZodError): AppError {
    return new AppError(
      'service',
      `${call.label}: the service's answer lacks what it must hold (${describeIssues(error)}).`,
      {
        action: 'The service may have changed its interface; report it to the service operator.',
      },
    );
  }

  private async unexpected(call: AuthedCall, res: HttpResponse): Promise<AppError> {
    const detail = await this.errorDetail(res);
    return new AppError('service', `${call.label}: the service answered ${res.status}${detail}.`, {
      action:
        res.status === 400
          ? 'Check the job settings (input kind, extensions, structures).'
          : 'Try again later.',
    });
  }

  /** ": <message>" from an error body, short and redacted, or ''. */
  private async errorDetail(res: HttpResponse): Promise<string> {
    return errorDetailOf((await readBody(res, 64 * 1024).catch(() => Buffer.alloc(0))).toString('utf8'));
  }
}

/** A refusal whose body has been read already (the fast download path). */
interface FailedAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  detail: string;
}

/** ": <message>" from an error body, short and redacted, or ''. */
function errorDetailOf(body: string): string {
  const text = body.trim();
  if (!text) return '';
  let message = text;
  try {
    message = messageOf(JSON.parse(text) as unknown) ?? text;
  } catch {
    // plain text stays as it is
  }
  return `: ${redact(message.replace(/\s+/g, ' ')).slice(0, 300)}`;
}

function configUrl(raw: string, what: string): URL {
  try {
    return parseTransportUrl(raw, what);
  } catch (e) {
    // The same rule, but here it is the user's setting that is wrong.
    if (e instanceof AppError)
      throw new AppError('bad-input', e.message, {
        action: e.action ?? 'Check the connection settings.',
      });
    throw e;
  }
}

async function fileSize(path: string): Promise<number> {
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new Error('not a file');
    return s.size;
  } catch (e) {
    throw new AppError('bad-input', `The file to upload cannot be read: ${path} (${(e as Error).message}).`, {
      cause: e,
    });
  }
}

/**
 * The X-Stage header as shown to the user: decoded, one short line of printable text, or nothing. A
 * service's header is untrusted text, so anything odd is dropped rather than shown.
 */
export function stageHeader(raw: string | string[] | undefined): string | undefined {
  if (typeof raw !== 'string') return undefined;
  let text: string;
  try {
    text = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  // eslint-disable-next-line no-control-regex
  text = text.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return text.length > 0 && text.length <= 120 ? text : undefined;
}
