import { AppError } from '../../../src-shared/errors.js';
import { pollInterval, sleep, withJitter } from '../../service/retry.js';
import { asAppError, errorOf, isUnknownJob } from '../job-errors.js';
import type { JobRecord } from '../job-record.js';
import type { JobRun } from '../job-run.js';
import { pollPolicyFor } from '../loopback-tuning.js';
import { dropRemote } from './input.js';

/** The longest a Retry-After from the service is honoured, so that a job never sleeps for a day. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;

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
    await d.gate.wait(run.signal);
    let state;
    try {
      state = await conn.client.pollOnce(remoteJobId, run.signal);
    } catch (e) {
      if (conn.kind === 'local-engine' && isUnknownJob(e)) {
        // The local engine does not know the job: it was restarted on a temporary folder (the
        // command line's engine is), or its folder was removed. Ours, nothing billed: the job starts
        // over from its package. A remote service's job is never created again.
        const failed = run.transition(job, 'failed', { error: errorOf(asAppError(e)) });
        dropRemote(run, failed, 'queued', 'the local engine no longer knows the job');
        return;
      }
      throw e;
    }
    if (state.state === 'finished') {
      run.result = state.result;
      run.transition(job, 'downloading', { progress: { fraction: 0, stage: 'downloading' } });
      return;
    }
    // Percent and stage as the service tells them (the local engine does); without them the bar
    // shows work under way rather than a made-up 0 %.
    d.onProgress(job.id, {
      ...(state.progress !== undefined ? { fraction: state.progress } : {}),
      stage: state.stage ?? 'processing',
    });
    const wait =
      state.retryAfterMs !== undefined
        ? Math.min(state.retryAfterMs, MAX_RETRY_AFTER_MS)
        : withJitter(pollInterval(policy, run.polls), policy.jitter);
    run.log.debug('next poll', { jobId: job.id, n: run.polls++, waitMs: wait });
    await pollSleep(run, wait);
  }
}

/** Sleeps until the next poll, or less when the user asks for this job now. */
async function pollSleep(run: JobRun, ms: number): Promise<void> {
  const wake = new AbortController();
  run.wakePoll = () => wake.abort();
  const both = AbortSignal.any([run.signal, wake.signal]);
  try {
    await sleep(ms, both);
  } catch (e) {
    if (run.signal.aborted) throw e;
  } finally {
    run.wakePoll = undefined;
  }
}
