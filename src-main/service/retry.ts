import { AppError } from '../../src-shared/errors.js';
import type { Logger } from '../logging/logger.js';
import { canceledError } from './transport-error.js';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the call fails and says when to come back. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
};

export interface PollPolicy {
  initialMs: number;
  maxMs: number;
  factor: number;
  /** 0.2 spreads each wait over ±20 % so that many clients do not poll in step. */
  jitter: number;
}

export const DEFAULT_POLL: PollPolicy = { initialMs: 2_000, maxMs: 30_000, factor: 1.5, jitter: 0.2 };

/** Exponential backoff with "equal jitter": half fixed, half random, so waits never collapse to zero. */
export function backoffDelay(policy: RetryPolicy, attempt: number, random = Math.random): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp / 2 + random() * (exp / 2));
}

/** The n-th poll interval (n from 0), before jitter. */
export function pollInterval(policy: PollPolicy, n: number): number {
  return Math.min(policy.maxMs, policy.initialMs * policy.factor ** n);
}

export function withJitter(ms: number, jitter: number, random = Math.random): number {
  return Math.max(0, Math.round(ms * (1 - jitter + 2 * jitter * random())));
}

/**
 * The service asked (Retry-After) for a wait longer than a call waits in place: the call fails, and
 * whoever runs it again (the job runner) waits `waitMs` first, as asked.
 */
export class WaitRequested extends AppError {
  constructor(
    message: string,
    action: string,
    readonly waitMs: number,
  ) {
    super('service', message, { action, retryable: true });
  }
}

/**
 * Between attempts of a call: throws `failure` when the attempts are used up, or when the server asks
 * for a wait longer than the policy allows (then saying when to come back); else waits Retry-After, or
 * the backoff delay, and logs the retry (tests read the delay from the log, not the clock).
 */
export async function waitBeforeRetry(
  policy: RetryPolicy,
  logger: Logger,
  step: { label: string; attempt: number; failure: AppError; retryAfterMs: number | undefined },
  signal: AbortSignal | undefined,
): Promise<void> {
  const { label, attempt, failure, retryAfterMs } = step;
  if (attempt >= policy.maxAttempts) throw failure;
  if (retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs)
    throw new WaitRequested(
      `${failure.message} It asks to wait ${describeDuration(retryAfterMs)} before trying again.`,
      `Try again after ${new Date(Date.now() + retryAfterMs).toISOString()}.`,
      retryAfterMs,
    );
  const delay = retryAfterMs ?? backoffDelay(policy, attempt);
  logger.warn('retrying', { call: label, attempt, delayMs: delay, error: failure.message });
  await sleep(delay, signal);
}

function describeDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

/** A timer that ends early, with a 'canceled' error, when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(canceledError());
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(canceledError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Waits for a shared promise without letting one caller's abort cancel it for the others. */
export function raceAbort<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(canceledError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(canceledError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
