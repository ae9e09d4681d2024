import { isAppError } from '../../src-shared/errors.js';
import type { JobView } from '../../src-shared/jobs.js';

/** The command line's exit codes, documented in the README ("Command line"); each says one thing. */
export const EXIT = {
  /** Every job is done (or the command did what it was asked). */
  ok: 0,
  /** A job failed, or was left unfinished (Ctrl+C: `scan2mesh resume` finishes it). */
  jobFailed: 1,
  /** Bad usage, or an input that cannot be read. */
  usage: 2,
  /** The service or its sign-in refused the credentials (client id, secret, audience). */
  authFailed: 3,
  /** The service or its sign-in address could not be reached (no network, a wrong address, nothing listening). */
  unreachable: 4,
  /** `scan2mesh retry`: the job's creation may have reached the service; `--resubmit` submits it again. */
  mayExist: 5,
} as const;

/** Thrown by a command to end with a given code and message (printed to stderr). */
export class CliExit extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The exit code for an error that ended a command, by its code (never by its words). */
export function exitCodeOfError(e: unknown): number {
  if (e instanceof CliExit) return e.code;
  if (!isAppError(e)) return EXIT.jobFailed;
  switch (e.code) {
    case 'auth-failed':
      return EXIT.authFailed;
    case 'bad-input':
    case 'bad-request':
    case 'not-found':
      return EXIT.usage;
    case 'network':
      return EXIT.unreachable;
    case 'job-may-exist':
      return EXIT.mayExist;
    default:
      return EXIT.jobFailed;
  }
}

/**
 * 0 when every job is done; else the most telling failure among them: 3 one failed to sign in, 4 one
 * could not reach its service, 5 one's creation may have reached the service; 1 otherwise.
 */
export function exitCodeOf(views: JobView[]): number {
  if (views.every((v) => v.state === 'done')) return EXIT.ok;
  const failedWith = (code: string): boolean =>
    views.some((v) => v.state === 'failed' && v.error?.code === code);
  if (failedWith('auth-failed')) return EXIT.authFailed;
  if (failedWith('network')) return EXIT.unreachable;
  if (failedWith('job-may-exist')) return EXIT.mayExist;
  return EXIT.jobFailed;
}

/**
 * The exit code of a wait Ctrl+C ended: 5 when a job's creation was on its way (the service may have
 * it), else 1 (`resume` finishes the jobs); undefined when it was not interrupted.
 */
export function interruptedExit(interrupted: boolean, mayExist: readonly string[]): number | undefined {
  if (!interrupted) return undefined;
  return mayExist.length > 0 ? EXIT.mayExist : EXIT.jobFailed;
}
