import { AppError } from '../../src-shared/errors.js';
import { CliExit, EXIT } from './exit-codes.js';

/** --concurrency (and --parallel): uploads and downloads at the same time. */
export function parseConcurrency(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 16)
    throw new AppError('bad-input', `--concurrency must be 1..16, not "${value}"`, {
      action: 'Give the number of uploads (and of downloads) to run at the same time.',
    });
  return n;
}

/** --port of `web` and `engine`; 0 = a free port chosen by the system. */
export function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new CliExit(EXIT.usage, `--port must be 0..65535, not "${value}"`);
  return n;
}
