import type { z } from 'zod';
import { AppError } from '../../src-shared/errors.js';
import type { Logger } from '../logging/logger.js';
import {
  canceledError,
  discard,
  readBody,
  retryAfterMs,
  send,
  TransportError,
  type Agents,
  type HttpResponse,
} from './http-transport.js';
import { waitBeforeRetry, type RetryPolicy } from './retry.js';
import {
  describeIssues,
  errorDetail,
  jobMayExist,
  networkError,
  Transient,
  withoutKnownIn,
} from './service-errors.js';
import type { TokenManager } from './token-manager.js';
import { safeUrl } from './url-policy.js';

/**
 * What to do after an answer that is final for this call (a 4xx other than 401 and 429): the
 * interface names none of them (§7), so each says what its status means in HTTP.
 */
const ACTION_FOR_STATUS: Record<number, string> = {
  400: 'Check the job settings (input kind, extensions, structures).',
  403: 'The service does not allow this account that call: ask the service operator what the client id may do (a plan, a region or a structure it does not include).',
  404: "Check the connection's service address, with its version (for example …/24.06); for a job, the service no longer has it.",
  405: "Check the connection's service address and version: this one does not take that call.",
  409: 'The service reports a conflict with the state of the job; look at the job with the service operator before submitting it again.',
  410: 'The service no longer has it; submit the scan again.',
  413: 'The service refused what was sent as too large (for a job request: too many meshes or options; for a scan: its size); ask the service operator for its limits.',
  415: 'The service does not take this kind of input; check the input kind and extension.',
  422: 'Check the job settings (input kind, extensions, structures).',
};

export const CHECK_CREDENTIALS = 'Check the client id, client secret and audience of the connection.';

/** One call to the service's own endpoints, which carry the bearer token. */
export interface AuthedCall {
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

interface ServiceCallerConfig {
  tokens: TokenManager;
  agents: Agents;
  retry: RetryPolicy;
  idleTimeoutMs: number;
  expectContinueMs: number;
  logger: Logger;
}

/**
 * Calls with the bearer token (§5): a 401 drops the token and repeats the call once with a new one;
 * connection errors, 5xx and 429 are retried with backoff when the call may be repeated, and a call
 * that must not be repeated fails as 'job-may-exist' once it may have reached the service.
 */
export class ServiceCaller {
  constructor(private readonly cfg: ServiceCallerConfig) {}

  async call<T>(call: AuthedCall, handle: (res: HttpResponse) => Promise<T>): Promise<T> {
    const { tokens, logger } = this.cfg;
    let refreshed = false;
    let expectContinue = call.expectContinue === true;
    for (let attempt = 1; ; attempt++) {
      const token = await tokens.get(call.signal);
      let failure: AppError;
      let wait: number | undefined;
      try {
        const res = await this.send(call, token, expectContinue);
        logger.debug('service call', { call: call.label, url: safeUrl(call.url), status: res.status });
        if (res.status === 401) {
          discard(res);
          if (refreshed)
            throw new AppError(
              'auth-failed',
              `${call.label}: the service refused a freshly issued token (401).`,
              { action: CHECK_CREDENTIALS },
            );
          tokens.invalidate(token);
          refreshed = true;
          attempt--;
          continue;
        }
        if (res.status === 417 && expectContinue) {
          // A server that refuses "Expect: 100-continue" has read no body: send it plainly.
          discard(res);
          expectContinue = false;
          attempt--;
          continue;
        }
        if (res.status !== 429 && res.status < 500) return await handle(res);
        wait = retryAfterMs(res.headers);
        const detail = await errorDetail(res, [token, ...tokens.credentials()]);
        const answered = `the service answered ${res.status}${detail}`;
        // The interface promises nothing of its error answers (§7), so a call that must not be
        // repeated is repeated only when the request surely made nothing: its body never went out
        // (the answer came instead of "100 Continue"), or the answer says it was not taken (429 too
        // many requests, 503 not available). After a 500, 502 or 504 the job may have been made
        // (a gateway's 504 often comes after the service did its work).
        if (!call.idempotent && res.bodySent !== false && res.status !== 429 && res.status !== 503)
          throw jobMayExist(answered);
        failure = new AppError('service', `${call.label}: ${answered}.`, {
          action: 'Try again later.',
          retryable: true,
        });
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
      await waitBeforeRetry(
        this.cfg.retry,
        logger,
        { label: call.label, attempt, failure, retryAfterMs: wait },
        call.signal,
      );
    }
  }

  /** The answer's JSON; a malformed body is Transient (worth another try when the call may repeat). */
  async readJson(call: AuthedCall, res: HttpResponse): Promise<unknown> {
    const text = (await readBody(res)).toString('utf8');
    try {
      // A service that quotes the token or secret back (in a failed job's message, say) has them cut
      // out of every text in its answer before anything reads it: its words reach the UI, the logs
      // and the job database. Cut after parsing, which undoes any escape JSON allows.
      return withoutKnownIn(JSON.parse(text) as unknown, this.cfg.tokens.credentials());
    } catch {
      throw new Transient(
        new AppError('service', `${call.label}: the service answered with malformed JSON.`, {
          action: 'Try again later; if it persists, report it to the service operator.',
          retryable: true,
        }),
      );
    }
  }

  badShape(call: AuthedCall, error: z.ZodError): AppError {
    return new AppError(
      'service',
      `${call.label}: the service's answer lacks what it must hold (${describeIssues(error)}).`,
      { action: 'The service may have changed its interface; report it to the service operator.' },
    );
  }

  async unexpected(call: AuthedCall, res: HttpResponse): Promise<AppError> {
    const detail = await errorDetail(res, this.cfg.tokens.credentials());
    return new AppError('service', `${call.label}: the service answered ${res.status}${detail}.`, {
      action:
        ACTION_FOR_STATUS[res.status] ?? 'Try again later; if it happens again, tell the service operator.',
    });
  }

  private send(call: AuthedCall, token: string, expectContinue: boolean): Promise<HttpResponse> {
    return send({
      method: call.method,
      url: call.url,
      headers: {
        Authorization: `Bearer ${token}`,
        Accept: 'application/json, text/plain;q=0.9, */*;q=0.8',
        'Accept-Encoding': 'identity',
        ...(call.body ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(call.body ? { body: call.body } : {}),
      // A pooled socket the server has just closed fails after the request went out: a fresh
      // connection keeps "sent, no answer" meaning what it says for the call that must not repeat.
      agents: call.idempotent ? this.cfg.agents : false,
      signal: call.signal,
      idleTimeoutMs: this.cfg.idleTimeoutMs,
      ...(expectContinue ? { expectContinueMs: this.cfg.expectContinueMs } : {}),
    });
  }
}
