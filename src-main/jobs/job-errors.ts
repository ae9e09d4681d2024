import { AppError, isAppError, type AppErrorShape } from '../../src-shared/errors.js';
import { onLocalEngine } from './engine-leftovers.js';
import type { JobError, JobPatch, JobRecord } from './job-record.js';
import { isTerminal } from '../../src-shared/jobs.js';

/**
 * The queue's rules about failures, in one place: what a thrown thing means for the user, which
 * failures are waited out, and which ones make the job start over on the service. Matched by code,
 * never by wording.
 */

/** Whatever a step threw, as an error the user can read and the queue can decide on. */
export function asAppError(e: unknown): AppError {
  if (isAppError(e)) return e;
  const err = e as NodeJS.ErrnoException;
  // Which file, for the user (logs redact paths): a full or read-only disk is found by its folder.
  const where = typeof err?.path === 'string' ? ` (${err.path})` : '';
  // SQLite's own codes: the queue's database cannot be written.
  if (err?.code === 'SQLITE_FULL')
    return new AppError(
      'disk-full',
      "The disk holding scan2mesh's data folder is full: the job's progress cannot be recorded.",
      {
        action: 'Free some disk space, then run `scan2mesh resume` (the job is kept where it stood).',
        retryable: true,
      },
    );
  if (err?.code === 'SQLITE_READONLY' || err?.code === 'SQLITE_CANTOPEN')
    return new AppError(
      'internal',
      "scan2mesh's data folder cannot be written: the job's progress cannot be recorded.",
      {
        action: 'Check that the data folder and its disk are writable, then run `scan2mesh resume`.',
      },
    );
  if (err?.code === 'ENOSPC')
    return new AppError('disk-full', `The disk is full: a file cannot be written${where}.`, {
      action: 'Free some disk space and retry the job.',
      retryable: true,
    });
  if (err?.code === 'EACCES' || err?.code === 'EPERM' || err?.code === 'EROFS')
    return new AppError(
      'bad-input',
      `A file cannot be written${where}: ${err.code === 'EROFS' ? 'the disk is read-only' : 'permission denied'}.`,
      { action: 'Check that the output folder is writable, then retry the job.' },
    );
  if (err?.code === 'ENOENT' && (err.syscall === 'mkdir' || err.syscall === 'open'))
    return new AppError(
      'bad-input',
      // A read or a write: either may meet a file or folder removed meanwhile.
      `A file or folder is missing${where}: it, or a folder above it, was removed.`,
      { action: 'Check that the scan and the output folder are where they were, then retry the job.' },
    );
  return new AppError('internal', e instanceof Error ? e.message : String(e), { cause: e });
}

/** Failures that may pass by themselves: worth waiting for rather than failing the job overnight. */
export function isTransient(e: AppError): boolean {
  switch (e.code) {
    case 'job-may-exist':
    case 'canceled':
    case 'job-failed':
    case 'auth-failed':
    case 'disk-full': // space does not free itself: the user is told at once
      return false;
    case 'network':
      return true;
    default:
      return e.retryable === true;
  }
}

/** The service answered a poll with "no such job". */
export function isUnknownJob(e: unknown): boolean {
  return isAppError(e) && e.code === 'job-unknown';
}

/**
 * A retry creates a new remote job when there is none, when the service failed or forgot the old one,
 * or when the old one never got its scan: a job that ended kept no pre-signed upload address (it
 * grants access to storage), so that scan cannot be sent to it any more. Otherwise it goes on with the
 * job the service still has: notified again with the address it kept (a notify that failed may have
 * reached the service, and a new job would then be billed twice), polled, its meshes downloaded.
 */
export function retryNeedsNewRemoteJob(
  job: Pick<JobRecord, 'state' | 'remoteJobId' | 'error' | 'inputs' | 'profileId' | 'connection'>,
): boolean {
  return (
    !job.remoteJobId ||
    // The app's local engine discards a canceled job (job-files.ts ended).
    (job.state === 'canceled' && onLocalEngine(job)) ||
    job.error?.code === 'job-failed' ||
    job.error?.code === 'job-unknown' ||
    job.inputs.some((i) => !i.uploaded || (!i.notified && !i.notifyUrl))
  );
}

/**
 * What a retry writes: the job queued again, its error cleared, and, when its remote job cannot be
 * gone on with (retryNeedsNewRemoteJob), that job forgotten so that a new one is created.
 */
export function retryChange(
  rec: Pick<
    JobRecord,
    'state' | 'error' | 'remoteJobId' | 'attempts' | 'inputs' | 'profileId' | 'connection'
  >,
): {
  patch: JobPatch;
  detail: Record<string, unknown>;
  extras: { forgetRemote: boolean };
} {
  const mayExist = rec.state === 'failed' && rec.error?.code === 'job-may-exist';
  const fresh = retryNeedsNewRemoteJob(rec);
  return {
    patch: {
      error: null,
      progress: {},
      attempts: rec.attempts + 1,
      ...(fresh ? { remoteJobId: null, serviceUrl: null, createSentAt: null, resumeState: null } : {}),
    },
    detail: { by: 'user', retry: mayExist ? 'resubmitted' : fresh ? 'new job' : 'same job' },
    extras: { forgetRemote: fresh },
  };
}

/**
 * Why a job cannot be retried, if it cannot: it has not ended, or its creation may have reached the
 * service and the user did not say to send it again (`resubmit`: the service may then bill twice).
 * A job canceled while its creation was in flight fails as 'job-may-exist' on its next run.
 */
export function retryRefusal(
  job: Pick<JobRecord, 'state' | 'error'>,
  resubmit: boolean,
): AppError | undefined {
  if (job.state !== 'failed' && job.state !== 'canceled')
    return new AppError(
      'bad-request',
      `Only a failed or canceled job can be retried; this one is ${job.state}.`,
    );
  if (job.state === 'failed' && job.error?.code === 'job-may-exist' && !resubmit)
    return new AppError(
      'bad-request',
      'The service may already have this job: its creation was sent, and the answer did not come or could not be used.',
      {
        action:
          'Check the service for a job created at that time. If there is none, submit it again explicitly (Submit again in the app, `scan2mesh retry <id> --resubmit`); the service may bill twice.',
      },
    );
  return undefined;
}

/** What the list shows while a failing step waits for its next try. */
export function troubleStage(e: AppError, retryAt: number, now = Date.now()): string {
  const what = e.code === 'network' ? 'No connection' : 'The service is busy';
  return `${what}; trying again ${retryWhen(retryAt, now)}`;
}

/**
 * When the next try comes, as a person reads it: "at 13:12 (in 30 s)"; a day is named when it is
 * not today ("on Mon 30 Nov at 13:12 (in 24 h)"): a Retry-After of a day would otherwise read as now.
 */
export function retryWhen(retryAt: number, now = Date.now()): string {
  const at = new Date(retryAt);
  const clock = at.toTimeString().slice(0, 5);
  const sameDay = at.toDateString() === new Date(now).toDateString();
  const day = sameDay
    ? ''
    : `on ${at.toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short' }).replace(',', '')} `;
  return `${day === '' ? 'at ' : `${day}at `}${clock} (in ${inWords(Math.max(0, retryAt - now))})`;
}

function inWords(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

/** The error as a job row stores it. */
export function errorOf(e: AppErrorShape): JobError {
  const err: JobError = { code: e.code, message: e.message };
  if (e.action !== undefined) err.action = e.action;
  if (e.retryable !== undefined) err.retryable = e.retryable;
  return err;
}

/**
 * Whether a job's creation was sent and not answered (yet): stopped now, the service may have the
 * job, and only the user can find out (a `resume` would not send it again on its own).
 */
export function creationOpen(rec: JobRecord | undefined): boolean {
  return !!rec && !isTerminal(rec.state) && !!rec.createSentAt && !rec.remoteJobId;
}
