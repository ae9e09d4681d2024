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

/**
 * --accept-burned-in lets a scan whose pixels may show patient data go out only de-identified, as its
 * help says: alone it used to leave de-identification to the connection's default (none for the local
 * engine), so the header went out with the pixels. It therefore turns de-identification on, and is
 * refused with an explicit --no-deidentify rather than one of the two being ignored.
 */
export function deidentifyChoice(opts: { deidentify?: boolean; acceptBurnedIn?: boolean }): {
  deidentify?: boolean;
} {
  if (!opts.acceptBurnedIn) return opts.deidentify === undefined ? {} : { deidentify: opts.deidentify };
  if (opts.deidentify === false)
    throw new CliExit(
      EXIT.usage,
      '--accept-burned-in sends scans de-identified, and --no-deidentify asks for the opposite: leave out one of the two',
    );
  return { deidentify: true };
}

/** Starts a server on --port; a port another program holds is said in words (exit 2), not as EADDRINUSE. */
export async function onPort<T>(port: number | undefined, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (e) {
    if (port !== undefined && (e as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new CliExit(EXIT.usage, `port ${port} is in use: choose another, or leave out --port`);
    throw e;
  }
}
