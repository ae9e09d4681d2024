import { AppError } from '../../src-shared/errors.js';
import type { PollResult } from '../../src-shared/job-spec.js';
import { isTerminal, type JobState } from '../../src-shared/jobs.js';
import type { Logger } from '../logging/logger.js';
import { loggableError } from '../logging/redact.js';
import { sleep, WaitRequested } from '../service/retry.js';
import { asAppError, errorOf, isTransient, troubleStage } from './job-errors.js';
import type { JobPatch, JobRecord, TransitionExtras } from './job-record.js';
import type { JobRun, RunnerDeps, StopReason } from './job-run.js';
import { TransitionRefused } from './job-store.js';
import { sendInput } from './phases/input.js';
import { fetchOutputs } from './phases/output.js';
import { waitForService } from './phases/processing.js';

export {
  DEFAULT_QUEUE_POLICY,
  type JobTrouble,
  type QueuePolicy,
  type RunnerDeps,
  type ScanSource,
  type StopReason,
} from './job-run.js';

/**
 * Drives one job through its states, one phase after the other (phases/input, processing, output),
 * and decides after a failure whether to wait and try again or to fail the job (job-errors.ts). Each
 * state is committed before the step it names starts, so that after a crash the job goes on from where
 * it stood.
 */
/** The longest wait a service may ask for (Retry-After) that a job waits out by itself. */
const MAX_ASKED_WAIT_MS = 2 * 24 * 3600_000;

/**
 * How long a shutdown (Ctrl+C, closing the app) waits for the answer to a job request already sent,
 * so that the job's id is kept. A service that does not answer held the command for its whole idle
 * timeout (60 s) after Ctrl+C; past this the request is let go, its outcome open (exit 5).
 */
export const SHUTDOWN_CREATE_GRACE_MS = 5000;

export class JobRunner implements JobRun {
  private readonly abort = new AbortController();
  private readonly cancel = new AbortController();
  private stopReason: StopReason | undefined;
  result: PollResult | undefined;
  wakePoll: (() => void) | undefined;
  recreated = 0;
  comingSince: number | undefined;
  polls = 0;
  unknownSince: number | undefined;
  readonly log: Logger;
  done: Promise<void> = Promise.resolve();

  constructor(
    readonly d: RunnerDeps,
    readonly jobId: string,
  ) {
    this.log = d.logger.child('job');
  }

  get stopped(): StopReason | undefined {
    return this.stopReason;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get cancelSignal(): AbortSignal {
    return this.cancel.signal;
  }

  start(): Promise<void> {
    this.done = this.run();
    return this.done;
  }

  stop(reason: StopReason): void {
    this.stopReason ??= reason;
    this.abort.abort();
    if (reason === 'cancel') this.cancel.abort();
    else setTimeout(() => this.cancel.abort(), SHUTDOWN_CREATE_GRACE_MS).unref();
  }

  /** Polls now instead of at the next scheduled time (the user is looking at this job). */
  pollNow(): void {
    this.wakePoll?.();
  }

  priority(): number {
    return this.d.store.priorityOf(this.jobId);
  }

  async transition(
    job: JobRecord,
    to: JobState,
    patch: JobPatch = {},
    detail?: Record<string, unknown>,
    extras: TransitionExtras & { evenIfStopped?: boolean } = {},
  ): Promise<JobRecord> {
    // The stop may have come while an await was settling, or come before the change is written with
    // the others of its turn: nothing is written for a stopped runner.
    const { evenIfStopped, ...storeExtras } = extras;
    const stopped = (): boolean => !evenIfStopped && this.signal.aborted;
    if (stopped()) throw new AppError('canceled', 'The job was stopped.');
    const next = await this.d.store.transitionSoon(job.id, to, patch, detail, storeExtras, stopped);
    this.log.info('state', { jobId: job.id, from: job.state, to, remoteJobId: next.remoteJobId });
    this.d.onChanged(next);
    return next;
  }

  private async run(): Promise<void> {
    let troubleSince: number | undefined;
    let troubleCount = 0;
    for (;;) {
      let job = this.d.store.get(this.jobId);
      const before = milestone(job);
      try {
        // A pause holds the jobs that have not started; those under way go on, as the user is told.
        const paused = job?.state === 'queued' && this.d.gate.blocks();
        if (paused) await this.d.gate.wait(this.signal);
        // Read again after a pause: the job may have been prioritized or canceled meanwhile.
        if (paused) job = this.d.store.get(this.jobId);
        if (!job || isTerminal(job.state) || this.signal.aborted) return;
        await this.step(job);
        if (troubleSince !== undefined) this.d.onTrouble(this.jobId, undefined);
        troubleSince = undefined;
        troubleCount = 0;
      } catch (e) {
        if (this.signal.aborted) return;
        // Another process (or the user, through the manager) moved the job: look at it again. A
        // refusal of a job nobody moved is this runner's own wrong step: looked at again, it would be
        // refused again, at full speed, forever; the job fails and says so instead.
        if (e instanceof TransitionRefused) {
          const now = this.d.store.get(this.jobId);
          if (!job || !now || now.state !== job.state || now.updatedAt !== job.updatedAt) continue;
          await this.fail(
            now,
            new AppError('internal', `The job could not go on from "${now.state}" (${e.message}).`, {
              action: 'Retry the job; if it happens again, report it with the log.',
            }),
          );
          return;
        }
        const err = asAppError(e);
        const current = this.d.store.get(this.jobId);
        if (!current || isTerminal(current.state)) return;
        if (milestone(current) !== before) {
          // The step got somewhere before it failed: the trouble clock starts again.
          troubleSince = undefined;
          troubleCount = 0;
        }
        troubleSince ??= Date.now();
        const { policy } = this.d;
        // A service that asked for a long wait (Retry-After: a day, for a daily quota) gets it, up to
        // two days; asking for more, the job fails now and says when to try again.
        const asked = err instanceof WaitRequested ? err.waitMs : 0;
        if (
          isTransient(err) &&
          Date.now() - troubleSince < policy.giveUpAfterMs &&
          asked <= MAX_ASKED_WAIT_MS
        ) {
          const backoff = Math.min(policy.transientMaxMs, policy.transientBaseMs * 2 ** troubleCount++);
          if (!(await this.waitOut(current, err, Math.max(asked, backoff)))) return;
          continue;
        }
        await this.fail(current, err);
        return;
      }
    }
  }

  private step(job: JobRecord): Promise<void> {
    switch (job.state) {
      case 'queued':
        if (job.remoteJobId && job.inputs.every((i) => i.notified)) {
          // A retried job whose input reached the service: go on from where it stood.
          const to: JobState = job.resumeState === 'downloading' ? 'downloading' : 'processing';
          return this.transition(job, to, { progress: {} }).then(() => {});
        }
        return sendInput(this, job);
      case 'preparing':
      case 'submitting':
      case 'uploading':
      case 'notifying':
        return sendInput(this, job);
      case 'processing':
        return waitForService(this, job);
      case 'downloading':
        return fetchOutputs(this, job);
      default:
        return Promise.resolve();
    }
  }

  /** Shows and records a failing step, then waits before the next try; false when stopped meanwhile. */
  private async waitOut(job: JobRecord, err: AppError, wait: number): Promise<boolean> {
    const retryAt = Date.now() + wait;
    this.log.warn('step failed, will try again', {
      jobId: this.jobId,
      state: job.state,
      waitMs: wait,
      code: err.code,
      error: loggableError(err),
    });
    this.d.store.note(this.jobId, 'trouble', {
      state: job.state,
      code: err.code,
      message: err.message,
      waitMs: wait,
    });
    this.d.onProgress(this.jobId, { ...job.progress, stage: troubleStage(err, retryAt) });
    this.d.onTrouble(this.jobId, {
      ...err.toShape(),
      retryable: true,
      retryAt: new Date(retryAt).toISOString(),
    });
    try {
      await sleep(wait, this.signal);
      return true;
    } catch {
      return false;
    }
  }

  private async fail(job: JobRecord, err: AppError): Promise<void> {
    // The message of an input error names the user's files: the log keeps its code (redact.ts).
    this.log.warn('job failed', {
      jobId: job.id,
      state: job.state,
      code: err.code,
      error: loggableError(err),
    });
    try {
      await this.transition(job, 'failed', { error: errorOf(err), resumeState: job.state });
    } catch (e) {
      if (!(e instanceof TransitionRefused) && !this.signal.aborted) throw e;
    }
  }
}

/** What a step achieves when it gets anywhere; progress text and bytes do not count. */
function milestone(job: JobRecord | undefined): string {
  if (!job) return '';
  const inputs = job.inputs.map((i) => `${i.uploaded ? 1 : 0}${i.notified ? 1 : 0}`).join('');
  const saved = job.outputs.filter((o) => o.status === 'saved').length;
  return `${job.state}|${job.remoteJobId ?? ''}|${inputs}|${saved}`;
}
