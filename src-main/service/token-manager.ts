import { z } from 'zod';
import { AppError } from '../../src-shared/errors.js';
import type { Logger } from '../logging/logger.js';
import { discard, readBody, retryAfterMs, send, TransportError, type Agents } from './http-transport.js';
import { backoffDelay, raceAbort, sleep, type RetryPolicy } from './retry.js';
import { connectionAction, describeConnectionFailure } from './service-errors.js';
import { safeUrl } from './url-policy.js';

/** §2.4; extra fields (scope, ...) are tolerated. */
const TokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.number().positive(),
});

/** What identity providers (Auth0 among them) say when they refuse: read only to explain. */
const TokenErrorSchema = z.looseObject({
  error: z.string().optional(),
  error_description: z.string().optional(),
  message: z.string().optional(),
});

interface TokenManagerConfig {
  tokenUrl: URL;
  audience: string;
  clientId: string;
  clientSecret: string;
  agents: Agents;
  retry: RetryPolicy;
  idleTimeoutMs: number;
  logger: Logger;
}

interface CachedToken {
  token: string;
  /** When to stop using it: shortly before the real expiry. */
  renewAt: number;
}

const CHECK_CREDENTIALS =
  'Check the client id, client secret and audience of the connection, and its sign-in address.';

/**
 * Client-credentials tokens (§5): fetched once, reused until shortly before expires_in runs out, and
 * never fetched twice at the same time however many jobs ask.
 */
export class TokenManager {
  /** Token requests sent to the identity provider (attempts included). */
  requests = 0;
  private cached: CachedToken | undefined;
  private inflight: Promise<CachedToken> | undefined;

  constructor(private readonly cfg: TokenManagerConfig) {}

  async get(signal?: AbortSignal): Promise<string> {
    if (this.cached && Date.now() < this.cached.renewAt) return this.cached.token;
    this.inflight ??= this.fetchToken().finally(() => {
      this.inflight = undefined;
    });
    return (await raceAbort(this.inflight, signal)).token;
  }

  /** After a 401: forget this token, unless a newer one has already replaced it. */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  private async fetchToken(): Promise<CachedToken> {
    const { retry, logger } = this.cfg;
    const body = Buffer.from(
      JSON.stringify({
        grant_type: 'client_credentials',
        audience: this.cfg.audience,
        client_id: this.cfg.clientId,
        client_secret: this.cfg.clientSecret,
      }),
    );
    for (let attempt = 1; ; attempt++) {
      const started = Date.now();
      this.requests++;
      logger.debug('token request', { url: safeUrl(this.cfg.tokenUrl), attempt });
      let wait: number | undefined;
      let failure: AppError;
      try {
        const res = await send({
          method: 'POST',
          url: this.cfg.tokenUrl,
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          body,
          agents: this.cfg.agents,
          idleTimeoutMs: this.cfg.idleTimeoutMs,
        });
        if (res.status >= 200 && res.status < 300) {
          const parsed = TokenResponseSchema.safeParse(parseJson((await readBody(res)).toString('utf8')));
          if (parsed.success) {
            const lifetimeMs = parsed.data.expires_in * 1000;
            const margin = Math.min(5 * 60_000, lifetimeMs * 0.1);
            const cached = { token: parsed.data.access_token, renewAt: started + lifetimeMs - margin };
            this.cached = cached;
            logger.info('token received', { expiresInS: parsed.data.expires_in });
            return cached;
          }
          failure = new AppError('service', 'The sign-in service answered without a usable token.', {
            action: 'Check the sign-in address of the connection.',
            retryable: true,
          });
        } else if (res.status === 429 || res.status >= 500) {
          wait = retryAfterMs(res.headers);
          discard(res);
          failure = new AppError('service', `The sign-in service answered ${res.status}.`, {
            action: 'Try again later.',
            retryable: true,
          });
        } else {
          const text = (await readBody(res, 64 * 1024).catch(() => Buffer.alloc(0))).toString('utf8');
          throw new AppError('auth-failed', `Sign-in refused (${res.status}${describeTokenError(text)}).`, {
            action: CHECK_CREDENTIALS,
          });
        }
      } catch (e) {
        if (!(e instanceof TransportError)) throw e;
        failure = new AppError(
          'network',
          `The sign-in address ${this.cfg.tokenUrl.host} could not be reached: ${describeConnectionFailure(e)}.`,
          {
            action: connectionAction(e, 'the sign-in address of the connection'),
            retryable: true,
            cause: e,
          },
        );
      }
      const delay = wait ?? backoffDelay(retry, attempt);
      if (attempt >= retry.maxAttempts || delay > retry.maxRetryAfterMs) throw failure;
      logger.warn('token request failed, retrying', { attempt, delayMs: delay, error: failure.message });
      await sleep(delay);
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function describeTokenError(text: string): string {
  const parsed = TokenErrorSchema.safeParse(parseJson(text));
  if (!parsed.success) return '';
  const parts = [parsed.data.error, parsed.data.error_description ?? parsed.data.message].filter(Boolean);
  return parts.length ? `: ${parts.join(': ').slice(0, 300)}` : '';
}
