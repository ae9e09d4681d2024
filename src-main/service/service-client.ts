import { z } from 'zod';
import { AppError, isAppError } from '../../src-shared/errors.js';
import {
  buildJobBody,
  CreateJobResponseSchema,
  jobCreationPath,
  JobSpecSchema,
  PollResultSchema,
  type JobSpec,
} from '../../src-shared/job-spec.js';
import { serviceVersion } from '../../src-shared/profiles.js';
import { silentLogger, type Logger } from '../logging/logger.js';
import { createAgents, destroyAgents, discard, readBody, type Agents } from './http-transport.js';
import { processingState, type PollState } from './poll-state.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import { CHECK_CREDENTIALS, ServiceCaller, type AuthedCall } from './service-call.js';
import { checkFinished, describeIssues, jobCreatedUnusable, jobMayExist } from './service-errors.js';
import { TokenManager, type TokenCache } from './token-manager.js';
import { Transfers, type DownloadOptions, type TransferOptions } from './transfers.js';
import { joinUrl, mayCarryToken, parseTransportUrl } from './url-policy.js';

export { PresignedRefusedError } from './service-errors.js';
export type { PollState } from './poll-state.js';
export type { DownloadOptions, TransferOptions } from './transfers.js';

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
  /** Socket inactivity after which a call fails (and is retried when that is safe). Default 60 s. */
  idleTimeoutMs?: number;
  /** How long POST /job waits for "100 Continue" before it sends its body anyway. Default 1 s (as curl). */
  expectContinueMs?: number;
  /** Where the token is kept between runs (token-manager.ts); none: in memory only. */
  tokenCache?: TokenCache | undefined;
}

export interface CreatedJob {
  jobId: string;
  /** One per input to upload directly; inputs with a client-hosted downloadUrl have none. */
  uploads: { input: string; uploadUrl: string; notifyUrl: string }[];
}

const TestAuthSchema = z.array(z.string()).min(1);

/**
 * The client of the segmentation service (service-interface.md). Each step of a job is its own
 * public method so that a job queue can persist between them. Calls with the token are in
 * service-call.ts, token caching in token-manager.ts, transfers to pre-signed addresses in transfers.ts.
 */
export class ServiceClient {
  readonly baseUrl: URL;
  readonly version: string;
  private readonly tokens: TokenManager;
  private readonly agents: Agents;
  private readonly logger: Logger;
  private readonly caller: ServiceCaller;
  private readonly transfers: Transfers;
  /** The addresses of the calls every job makes, built once. */
  private readonly jobUrl: URL;
  private readonly pollUrl: string;

  constructor(opts: ServiceClientOptions) {
    this.logger = opts.logger ?? silentLogger;
    this.baseUrl = configUrl(opts.baseUrl, 'The service address');
    const version = serviceVersion(this.baseUrl.href);
    if (!version)
      throw new AppError('bad-input', 'The service address has no version segment.', {
        action: 'Write it with the version, e.g. https://eu.virtualpatientengine.com/24.06',
      });
    this.version = version;
    this.jobUrl = joinUrl(this.baseUrl, jobCreationPath(version));
    this.pollUrl = joinUrl(this.baseUrl, '/pollJobResults').href;
    const authUrl = configUrl(opts.authUrl, 'The sign-in address');
    for (const [name, value] of [
      ['audience', opts.audience],
      ['client id', opts.clientId],
      ['client secret', opts.clientSecret],
    ] as const) {
      if (!value)
        throw new AppError('bad-input', `The connection has no ${name}.`, { action: CHECK_CREDENTIALS });
    }
    const retry = { ...DEFAULT_RETRY, ...opts.retry };
    const idleTimeoutMs = opts.idleTimeoutMs ?? 60_000;
    this.agents = createAgents();
    this.tokens = new TokenManager({
      tokenUrl: joinUrl(authUrl, '/oauth/token'),
      audience: opts.audience,
      clientId: opts.clientId,
      clientSecret: opts.clientSecret,
      agents: this.agents,
      retry,
      idleTimeoutMs,
      logger: this.logger.child('token'),
      cache: opts.tokenCache,
    });
    this.caller = new ServiceCaller({
      tokens: this.tokens,
      agents: this.agents,
      retry,
      idleTimeoutMs,
      expectContinueMs: opts.expectContinueMs ?? 1_000,
      logger: this.logger,
    });
    this.transfers = new Transfers({ agents: this.agents, retry, idleTimeoutMs, logger: this.logger });
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
    return this.caller.call(call, async (res) => {
      if (res.status !== 200) throw await this.caller.unexpected(call, res);
      const parsed = TestAuthSchema.safeParse(await this.caller.readJson(call, res));
      if (!parsed.success) throw this.caller.badShape(call, parsed.error);
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
      url: this.jobUrl,
      body: Buffer.from(JSON.stringify(buildJobBody(checked.data))),
      idempotent: false,
      expectContinue: true,
      signal,
    };
    const created = await this.caller.call(call, async (res) => {
      if (res.status < 200 || res.status >= 300) throw await this.caller.unexpected(call, res);
      const parsed = CreateJobResponseSchema.safeParse(await this.caller.readJson(call, res));
      if (!parsed.success)
        throw jobMayExist(
          `the answer to the job request lacks what it must hold (${describeIssues(parsed.error)})`,
        );
      return parsed.data;
    });
    const jobId = created.jobId;
    const uploads: CreatedJob['uploads'] = [];
    // From here on the job exists: whatever makes the answer unusable must not lose its id.
    try {
      for (const [input, inputSpec] of Object.entries(checked.data.inputs)) {
        if (inputSpec.downloadUrl) continue;
        const entry = created.presignedUploadUrl?.[input];
        if (!entry)
          throw new AppError('service', `it holds no upload address for the input "${input}".`, {
            action: 'The service may not support this input; check the input kind and extension.',
          });
        parseTransportUrl(entry.presignedUploadUrl, `The upload address for "${input}"`);
        const notifyUrl = parseTransportUrl(entry.notifyFinishUploadUrl, `The notify address for "${input}"`);
        this.checkTokenDestination(notifyUrl, `the notify address of "${input}"`);
        // Kept as the service wrote them, once checked: a signature covers their own spelling, which
        // the URL parser's form may not keep (url-policy.ts requestTarget).
        uploads.push({ input, uploadUrl: entry.presignedUploadUrl, notifyUrl: entry.notifyFinishUploadUrl });
      }
    } catch (e) {
      if (!isAppError(e)) throw e;
      this.logger.warn('job created, answer unusable', { jobId, reason: e.message });
      throw jobCreatedUnusable(jobId, e.message, e.action ?? '');
    }
    this.logger.info('job created', { jobId, uploads: uploads.length });
    return { jobId, uploads };
  }

  /** PUT of a file to a pre-signed address, streamed from disk; never with an Authorization header. */
  upload(uploadUrl: string, filePath: string, opts: TransferOptions = {}): Promise<void> {
    return this.transfers.upload(uploadUrl, filePath, opts);
  }

  /** Tells the service an upload is complete: PUT, and once as POST if the service answers 405. */
  async notify(notifyUrl: string, signal?: AbortSignal): Promise<void> {
    const url = parseTransportUrl(notifyUrl, 'The notify address');
    this.checkTokenDestination(url, 'the upload notification');
    let method: 'PUT' | 'POST' = 'PUT';
    for (;;) {
      const call: AuthedCall = { label: 'Upload notification', method, url, idempotent: true, signal };
      const outcome = await this.caller.call(call, async (res) => {
        if (res.status >= 200 && res.status < 300) {
          discard(res);
          return 'done' as const;
        }
        if (res.status === 405 && method === 'PUT') {
          discard(res);
          return 'retry-as-post' as const;
        }
        throw await this.caller.unexpected(call, res);
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
      url: new URL(`${this.pollUrl}?${new URLSearchParams({ jobId }).toString()}`),
      idempotent: true,
      signal,
    };
    return this.caller.call<PollState>(call, async (res) => {
      if (res.status === 202) {
        // The body is the text PROCESSING; it carries nothing else, so it is not parsed.
        await readBody(res, 64 * 1024);
        return processingState(res.headers);
      }
      if (res.status === 404) {
        discard(res);
        throw new AppError('job-unknown', `The service does not know job ${jobId} (404).`, {
          action: 'The job may have expired on the service; submit the scan again.',
        });
      }
      if (res.status !== 200) throw await this.caller.unexpected(call, res);
      const parsed = PollResultSchema.safeParse(await this.caller.readJson(call, res));
      if (!parsed.success) throw this.caller.badShape(call, parsed.error);
      checkFinished(jobId, parsed.data);
      return { state: 'finished', result: parsed.data };
    });
  }

  /**
   * GET of a pre-signed address into a temporary file beside destPath, checked against the expected
   * size, then moved into place; never with an Authorization header. Returns the path used and the bytes.
   */
  download(
    url: string,
    destPath: string,
    opts: DownloadOptions = {},
  ): Promise<{ path: string; bytes: number }> {
    return this.transfers.download(url, destPath, opts);
  }

  /** Closes pooled connections; the client is not used afterwards. */
  close(): void {
    destroyAgents(this.agents);
  }

  /** The bearer token goes to the configured service's own site and nowhere else (mayCarryToken). */
  private checkTokenDestination(url: URL, what: string): void {
    if (!mayCarryToken(url, this.baseUrl))
      throw new AppError(
        'service',
        `The service named ${url.origin} for ${what}, which is not a site of the configured service (${this.baseUrl.origin}); the token is not sent there.`,
        {
          action:
            'Tell the service operator: a service that takes notifications elsewhere needs its address configured as the connection.',
        },
      );
  }
}

function configUrl(raw: string, what: string): URL {
  try {
    return parseTransportUrl(raw, what);
  } catch (e) {
    // The same rule, but here it is the user's setting that is wrong.
    if (e instanceof AppError)
      throw new AppError('bad-input', e.message, { action: e.action ?? 'Check the connection settings.' });
    throw e;
  }
}
