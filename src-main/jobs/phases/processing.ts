import { AppError } from '../../../src-shared/errors.js';
import { pollInterval, withJitter } from '../../service/retry.js';
import { JobFailedError } from '../../service/service-errors.js';
import { canceledError } from '../../service/transport-error.js';
import { asAppError, errorOf, isUnknownJob } from '../job-errors.js';
import type { JobRecord } from '../job-record.js';
import type { JobRun } from '../job-run.js';
import { pollPolicyFor } from '../loopback-tuning.js';
import { dropRemote } from './input.js';

/** The longest a Retry-After from the service is honoured, so that a job never sleeps for a day. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;
/** The least wait between polls of a remote service, whatever its Retry-After says. */
const MIN_REMOTE_POLL_MS = 1_000;

/** The processing phase: poll the service until the job is finished, then hand it to the output phase. */
export async function waitForService(run: JobRun, job: JobRecord): Promise<void> {
  const { d } = run;
  const conn = await d.connections.resolve(job);
  const remoteJobId = job.remoteJobId;
  if (!remoteJobId) throw new AppError('internal', `Job ${job.id} is processing without a remote job.`);
  // The local engine ends in seconds to minutes and costs nothing to ask: poll it often.
  const policy = pollPolicyFor(conn.kind, d.policy);
  // Just notified: the service needs a moment. Resumed: ask at once.
  const fresh = Date.now() - Date.parse(job.updatedAt) < policy.firstPollDelayMs;
  if (fresh) await pollSleep(run, policy.firstPollDelayMs);
  for (;;) {
    let state;
    try {
      state = await conn.client.pollOnce(remoteJobId, run.signal);
    } catch (e) {
      if (conn.kind === 'local-engine' && isUnknownJob(e)) return startOverOnLocalEngine(run, job, e);
      if (conn.kind === 'local-engine' && e instanceof JobFailedError) throw localEngineRefusal(e);
      if (isUnknownJob(e)) {
        run.unknownSince ??= Date.now();
        if (Date.now() - run.unknownSince < d.policy.unknownJobGraceMs) {
          run.log.warn('the service does not know the job (yet): asking again', { jobId: job.id });
          await pollSleep(run, withJitter(pollInterval(policy, run.polls++), policy.jitter));
          continue;
        }
      }
      throw e;
    }
    run.unknownSince = undefined;
    if (state.state === 'finished') {
      run.result = state.result;
      await run.transition(job, 'downloading', { progress: { fraction: 0, stage: 'downloading' } });
      return;
    }
    // Percent and stage as the service tells them (the local engine does); without them the bar
    // shows work under way rather than a made-up 0 %.
    d.onProgress(job.id, {
      ...(state.progress !== undefined ? { fraction: state.progress } : {}),
      stage: state.stage ?? 'processing',
    });
    // Retry-After is obeyed, but 0 or a date already past is not taken as "poll without pause": the
    // first interval of the connection's policy is the least wait (20 ms on loopback, 1 s elsewhere).
    const wait =
      state.retryAfterMs !== undefined
        ? Math.max(
            Math.min(policy.initialMs, MIN_REMOTE_POLL_MS),
            Math.min(state.retryAfterMs, MAX_RETRY_AFTER_MS),
          )
        : withJitter(pollInterval(policy, run.polls), policy.jitter);
    run.log.debug('next poll', { jobId: job.id, n: run.polls++, waitMs: wait });
    await pollSleep(run, wait);
  }
}

/**
 * Sleeps until the next poll, or less when the user asks for this job now (wakePoll). One timer and
 * one listener per poll: no AbortSignal.any, whose combined signals cost more than the poll itself on
 * loopback.
 */
function pollSleep(run: JobRun, ms: number): Promise<void> {
  const { signal } = run;
  if (signal.aborted) return Promise.reject(canceledError());
  return new Promise<void>((resolve, reject) => {
    const end = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (run.wakePoll === wake) run.wakePoll = undefined;
    };
    const wake = (): void => {
      end();
      resolve();
    };
    const onAbort = (): void => {
      end();
      reject(canceledError());
    };
    const timer = setTimeout(wake, ms);
    signal.addEventListener('abort', onAbort, { once: true });
    run.wakePoll = wake;
  });
}

/**
 * The local engine does not know the job: it was restarted on a temporary folder (the command
 * line's engine is), or its folder was removed. Ours, nothing billed: the job starts over from its
 * package, while it waits for the result or fetches it (meshes already saved stay saved). A remote
 * service's job is never created again. Both changes are asked in one turn, so both go in one commit:
 * whoever waits for the job to end never sees it end on the failure it starts over from.
 */
export async function startOverOnLocalEngine(run: JobRun, job: JobRecord, e: unknown): Promise<void> {
  const error = errorOf(asAppError(e));
  await Promise.all([
    run.transition(job, 'failed', { error }),
    dropRemote(run, { ...job, state: 'failed', error }, 'queued', 'the local engine no longer knows the job'),
  ]);
}

/**
 * The local engine's refusal, in its own words, which say what to do where it knows (a damaged file:
 * export the scan again): it runs on this computer (no service, no operator, no job id to quote), and
 * the same scan and structures would be refused again, so no retry is offered.
 */
function localEngineRefusal(e: JobFailedError): AppError {
  return new AppError('job-failed', `The local engine made no model: ${e.reason ?? 'it gave no reason'}`, {
    action:
      'Change what the reason names (the scan, or a structure it cannot make) and submit again, or use a remote segmentation service.',
    retryable: false,
  });
}
