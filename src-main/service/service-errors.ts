import type { z } from 'zod';
import { AppError } from '../../src-shared/errors.js';
import { OUTPUT_AVAILABLE, type PollResult } from '../../src-shared/job-spec.js';
import type { TransportError } from './http-transport.js';

/** The client's failures, each in words a user can act on. */

const JOB_MAY_EXIST_ACTION =
  'Do not submit it again blindly: check the service (or wait for its webhook) for a job created just now, and submit again only if there is none.';

/** The pre-signed address was refused (403): storage says it expired or its signature is wrong. */
export class PresignedRefusedError extends AppError {
  constructor(what: 'upload' | 'download', status: number, detail: string) {
    super(
      'service',
      `The ${what} address was refused (${status}${detail}); pre-signed addresses expire after a while.`,
      {
        action:
          what === 'upload'
            ? 'Submit the job again to get a fresh upload address.'
            : 'Poll the job again to get fresh download addresses.',
        retryable: true,
      },
    );
  }
}

/** A malformed answer: worth another try for calls that may be repeated. */
export class Transient extends Error {
  constructor(readonly failure: AppError) {
    super(failure.message);
  }
}

export function jobMayExist(reason: string): AppError {
  return new AppError(
    'job-may-exist',
    `The job request was sent but its outcome is unknown: ${reason}. The job may exist on the service.`,
    { action: JOB_MAY_EXIST_ACTION, retryable: false },
  );
}

export function networkError(label: string, url: URL, e: TransportError): AppError {
  return new AppError('network', `${label}: the connection to ${url.host} failed (${e.message}).`, {
    action: 'Check the network connection and the service address, then try again.',
    retryable: true,
    cause: e,
  });
}

/** success: false and outputs that are not Available are failed jobs, told in the service's words. */
export function checkFinished(jobId: string, result: PollResult): void {
  if (!result.success)
    throw new AppError(
      'job-failed',
      `The service reports job ${jobId} as failed: ${messageOf(result) ?? 'no reason given'}.`,
      {
        action: 'Check the scan and the requested structures; submit again or contact the service operator.',
      },
    );
  for (const mesh of result.outputFiles?.meshes ?? []) {
    if (mesh.status !== OUTPUT_AVAILABLE)
      throw new AppError(
        'job-failed',
        `The output ${mesh.structures.join('+')}${mesh.extension} of job ${jobId} has status "${mesh.status}"${
          messageOf(mesh) ? `: ${messageOf(mesh)}` : ''
        }.`,
        { action: 'Check the requested structures; submit again or contact the service operator.' },
      );
  }
}

export /** The service's own words from an error or result body, wherever it put them. */
function messageOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (Array.isArray(body)) return body.map(messageOf).find(Boolean);
  if (!body || typeof body !== 'object') return undefined;
  const o = body as Record<string, unknown>;
  for (const key of ['message', 'error_description', 'errorMessage', 'error', 'detail', 'reason']) {
    const v = o[key];
    if (typeof v === 'string' && v) return v;
    if (v && typeof v === 'object') {
      const inner = messageOf(v);
      if (inner) return inner;
    }
  }
  return undefined;
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`)
    .join('; ');
}

export function describeDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}
