/**
 * Errors that cross the contract. Every failure the user sees has a code (for the UI to pick an
 * action), a message in plain words (what is wrong), and what to do about it.
 */
export const ERROR_CODES = [
  'bad-request', // the payload does not fit the contract
  'bad-input', // a file or scan the user chose cannot be used
  'burned-in-annotation', // de-identification cannot clean the pixels: the user must accept them as they are
  'not-found',
  'auth-failed', // wrong client id / secret, or the service refused the token twice
  'network', // the service could not be reached
  'service', // the service answered with an error
  'job-may-exist', // POST /job was sent and no answer came: the job may exist on the service
  'job-failed', // the service reports the job as failed
  'job-unknown', // the service does not know the job (404 on a poll): it expired there or was never kept
  'disk-full', // a file cannot be written for want of space
  'secret-store', // the OS keychain is unavailable
  'canceled',
  'internal',
] as const;

type ErrorCode = (typeof ERROR_CODES)[number];

export interface AppErrorShape {
  code: ErrorCode;
  message: string;
  /** What the user can do about it, when there is something. */
  action?: string;
  /** True when trying the same thing again may succeed. */
  retryable?: boolean;
}

export class AppError extends Error implements AppErrorShape {
  readonly code: ErrorCode;
  readonly action?: string;
  readonly retryable?: boolean;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { action?: string; retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    if (opts.action !== undefined) this.action = opts.action;
    if (opts.retryable !== undefined) this.retryable = opts.retryable;
  }

  toShape(): AppErrorShape {
    const s: AppErrorShape = { code: this.code, message: this.message };
    if (this.action !== undefined) s.action = this.action;
    if (this.retryable !== undefined) s.retryable = this.retryable;
    return s;
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
