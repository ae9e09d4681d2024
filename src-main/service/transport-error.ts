import { AppError } from '../../src-shared/errors.js';

/** The connection failed or was cut. `sent`: the whole request had left before it happened. */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly sent: boolean,
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TransportError';
  }
}

export function canceledError(): AppError {
  return new AppError('canceled', 'Canceled.');
}
