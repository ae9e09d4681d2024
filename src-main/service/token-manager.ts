import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '../../src-shared/errors.js';
import type { Logger } from '../logging/logger.js';
import { redact } from '../logging/redact.js';
import { discard, readBody, retryAfterMs, send, TransportError, type Agents } from './http-transport.js';
import { backoffDelay, raceAbort, sleep, type RetryPolicy } from './retry.js';
import { connectionAction, describeConnectionFailure, withoutKnown } from './service-errors.js';
import { safeUrl } from './url-policy.js';

/** §2.4; extra fields (scope, ...) are tolerated. */
const TokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  /**
   * §5.5 and §8.1: a token lives 24 hours. An answer without expires_in is taken at that word; one
   * that gives it as a string of digits ("86400", as some identity providers do) is read as its
   * number (a review's was refused as "no usable token", and asked again for hours).
   */
  expires_in: z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\s*\d+(\.\d+)?\s*$/)
        .transform(Number),
    ])
    .pipe(z.number().positive())
    .default(86_400),
});

/** What identity providers (Auth0 among them) say when they refuse: read only to explain. */
const TokenErrorSchema = z.looseObject({
  error: z.string().optional(),
  error_description: z.string().optional(),
  message: z.string().optional(),
});

/**
 * Where a token outlives the process (§5.5: "clients are asked to cache it and reuse it until near
 * expiry"), so that each run of the command line does not ask the identity provider for a new one.
 * The OS keychain, as the client secrets; best effort: a keychain that fails is only not used.
 */
export interface TokenCache {
  read(): Promise<string | null>;
  write(value: string): Promise<void>;
}

/** `binding`: for which sign-in address, audience and client it was issued (see bindingOf). */
const StoredTokenSchema = z.object({ token: z.string().min(1), renewAt: z.number(), binding: z.string() });

interface TokenManagerConfig {
  tokenUrl: URL;
  audience: string;
  clientId: string;
  clientSecret: string;
  agents: Agents;
  retry: RetryPolicy;
  idleTimeoutMs: number;
  logger: Logger;
  cache?: TokenCache | undefined;
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
  /** Whether the token kept by an earlier process has been looked for (once per manager). */
  private storedRead = false;

  constructor(private readonly cfg: TokenManagerConfig) {}

  async get(signal?: AbortSignal): Promise<string> {
    if (this.cached && Date.now() < this.cached.renewAt) return this.cached.token;
    this.inflight ??= this.obtain().finally(() => {
      this.inflight = undefined;
    });
    return (await raceAbort(this.inflight, signal)).token;
  }

  /** What an answer must never be repeated with: the token in use and the client secret. */
  credentials(): string[] {
    return [this.cached?.token ?? '', this.cfg.clientSecret].filter((c) => c !== '');
  }

  /**
   * After a 401: forget this token, unless a newer one has already replaced it. The keychain's copy
   * is left to be overwritten by the next token: deleting it could race with that write.
   */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  private async obtain(): Promise<CachedToken> {
    if (!this.storedRead) {
      this.storedRead = true;
      const stored = await this.readStored();
      if (stored) {
        this.cached = stored;
        return stored;
      }
    }
    const fresh = await this.fetchToken();
    const stored = JSON.stringify({ ...fresh, binding: this.binding() });
    await this.cfg.cache?.write(stored).catch((e: unknown) => {
      this.cfg.logger.debug('token not kept in the keychain', { error: String(e) });
    });
    return fresh;
  }

  private async readStored(): Promise<CachedToken | undefined> {
    const { cache, logger } = this.cfg;
    if (!cache) return undefined;
    try {
      const text = await cache.read();
      const parsed = text ? StoredTokenSchema.safeParse(JSON.parse(text)) : undefined;
      if (!parsed?.success || Date.now() >= parsed.data.renewAt) return undefined;
      // Issued for other credentials (the connection was edited, another secret given): not used.
      if (parsed.data.binding !== this.binding()) return undefined;
      logger.info('token reused from the keychain');
      return { token: parsed.data.token, renewAt: parsed.data.renewAt };
    } catch (e) {
      logger.debug('no token from the keychain', { error: String(e) });
      return undefined;
    }
  }

  /**
   * What a token stands for, hashed: the identity provider, audience, client and secret. A token
   * issued for other credentials (the connection was edited, another secret given) is not used.
   */
  private binding(): string {
    const { tokenUrl, audience, clientId, clientSecret } = this.cfg;
    return createHash('sha256')
      .update(`${tokenUrl.href}\n${audience}\n${clientId}\n${clientSecret}`)
      .digest('hex');
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
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json',
            'Accept-Encoding': 'identity',
          },
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
          throw new AppError(
            'auth-failed',
            `Sign-in refused (${res.status}${describeTokenError(text, this.cfg.clientSecret)}).`,
            {
              action: CHECK_CREDENTIALS,
            },
          );
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

/**
 * ": <error>: <description>" from the identity provider's refusal, or ''. Shown to the user and
 * logged, so never with the secret in it: some providers quote what they were sent.
 */
function describeTokenError(text: string, secret: string): string {
  const parsed = TokenErrorSchema.safeParse(parseJson(text));
  if (!parsed.success) return '';
  const parts = [parsed.data.error, parsed.data.error_description ?? parsed.data.message].filter(Boolean);
  if (parts.length === 0) return '';
  let said = parts.join(': ');
  said = withoutKnown(said, [secret]);
  return `: ${redact(said).slice(0, 300)}`;
}
