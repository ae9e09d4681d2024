import { isTerminal } from '../../src-shared/jobs.js';
import type { Logger } from '../logging/logger.js';
import { Ownership } from './job-owner.js';
import type { JobError, JobRecord } from './job-record.js';
import type { RunnerDeps, StopReason } from './job-run.js';
import { JobRunner } from './job-runner.js';
import type { JobStore } from './job-store.js';
import type { LiveProgress } from './live-progress.js';
import type { PauseGate } from './slots.js';
import { asAppError, errorOf } from './job-errors.js';

export interface RunnerPoolDeps {
  store: JobStore;
  /** What every runner shares; each gets the gate of its batch and reports to `live` and `changed`. */
  shared: Omit<RunnerDeps, 'gate' | 'onProgress' | 'onTrouble' | 'onChanged'>;
  gate: PauseGate;
  live: LiveProgress;
  /** `now`: an end or a user's change (told this turn), otherwise told at the next tick. */
  changed(ids: string[], now?: boolean): void;
  /** A runner let go of its job (not for a shutdown): what the job left may go. */
  ended(rec: JobRecord): void;
  leaseMs: number;
  logger: Logger;
  safely(fn: () => void): void;
}

/**
 * The runners of this process: one per job it has claimed (see Ownership), started, stopped, and let
 * go of when they end so that another process may take the job.
 */
export class RunnerPool {
  private readonly runners = new Map<string, JobRunner>();
  /** Jobs this process has run since it started. */
  private readonly startedHere = new Set<string>();
  /** Errors that stopped a runner here before they could be recorded as the job's failure. */
  private readonly crashes = new Map<string, JobError>();
  private readonly ownership: Ownership;
  private closing = false;
  /** Jobs let go of in this turn of the event loop: released together, in one commit, at its end. */
  private readonly toRelease = new Set<string>();
  private releaseTimer: NodeJS.Immediate | undefined;

  constructor(private readonly d: RunnerPoolDeps) {
    this.ownership = new Ownership(d.store, d.leaseMs, d.safely);
  }

  has(id: string): boolean {
    return this.runners.has(id);
  }

  ids(): string[] {
    return [...this.runners.keys()];
  }

  ranHere(id: string): boolean {
    return this.startedHere.has(id);
  }

  /** Another live process runs the job. */
  elsewhere(rec: JobRecord): boolean {
    return this.ownership.elsewhere(rec);
  }

  /** Runs the jobs here that no other process runs (claimed in one commit); says which were started. */
  startAll(recs: JobRecord[]): string[] {
    const claimed: JobRecord[] = [];
    this.d.store.together(() => {
      for (const rec of recs) if (this.runners.has(rec.id) || this.claim(rec)) claimed.push(rec);
    });
    for (const rec of claimed) this.run(rec);
    return claimed.map((r) => r.id);
  }

  /**
   * The error that stopped the job's runner here without being recorded (the queue's disk full),
   * while no runner has taken the job up again: its view shows it, and waiters take the job as ended.
   */
  crashOf(id: string): JobError | undefined {
    return this.runners.has(id) ? undefined : this.crashes.get(id);
  }

  /** Runs the job here unless another process does; false when it does. */
  start(rec: JobRecord): boolean {
    if (this.runners.has(rec.id)) return true;
    if (!this.claim(rec)) return false;
    this.run(rec);
    return true;
  }

  private claim(rec: JobRecord): boolean {
    // Let go of a moment ago and not released yet: still ours.
    this.toRelease.delete(rec.id);
    if (this.ownership.claim(rec)) return true;
    this.d.logger.info('job is run by another process', { jobId: rec.id });
    return false;
  }

  private run(rec: JobRecord): void {
    if (this.runners.has(rec.id)) return;
    const { live, changed } = this.d;
    const runner = new JobRunner(
      {
        ...this.d.shared,
        gate: this.d.gate.forKey(rec.batchId),
        onProgress: (id, p) => {
          live.progress(id, p);
          changed([id]);
        },
        onTrouble: (id, trouble) => {
          live.setTrouble(id, trouble);
          changed([id]);
        },
        onChanged: (r) => {
          live.committed(r);
          // An end is told at once (a command or a user waits on it); the steps before it, with
          // the progress, at the next tick: a batch of hundreds of jobs would otherwise be read
          // and told several times a job.
          changed([r.id], isTerminal(r.state));
        },
      },
      rec.id,
    );
    this.runners.set(rec.id, runner);
    this.startedHere.add(rec.id);
    runner
      .start()
      .catch((e: unknown) => {
        this.d.logger.error('job runner crashed', { jobId: rec.id, error: String(e) });
        this.crashes.set(rec.id, errorOf(asAppError(e)));
      })
      .finally(() => {
        if (this.runners.get(rec.id) === runner) this.runners.delete(rec.id);
        if (!this.closing) this.releaseSoon(rec.id);
        if (runner.stopped !== 'shutdown') this.d.ended(rec);
        // A crash is an end for whoever waits: told at once.
        changed([rec.id], this.crashes.has(rec.id));
      });
  }

  /**
   * Lets go of a job at the end of this turn of the event loop, with the others let go of meanwhile:
   * one commit for all. Until then the job stays marked as ours, which only delays a takeover.
   */
  private releaseSoon(id: string): void {
    this.toRelease.add(id);
    this.releaseTimer ??= setImmediate(() => {
      this.releaseTimer = undefined;
      const ids = [...this.toRelease];
      this.toRelease.clear();
      if (ids.length > 0 && !this.closing) this.d.safely(() => this.ownership.releaseEach(ids));
    });
  }

  stop(id: string, reason: StopReason): boolean {
    const runner = this.runners.get(id);
    runner?.stop(reason);
    return runner !== undefined;
  }

  /** Waits for the job's runner to let go of it, if one runs it. */
  async settled(id: string): Promise<void> {
    await this.runners.get(id)?.done;
  }

  pollNow(id: string): void {
    this.runners.get(id)?.pollNow();
  }

  /** Stops every runner for a shutdown (their jobs go on at the next start) and lets go of the jobs. */
  async close(): Promise<void> {
    this.closing = true;
    this.ownership.stop();
    const runners = [...this.runners.values()];
    for (const r of runners) r.stop('shutdown');
    await Promise.allSettled(runners.map((r) => r.done));
  }

  releaseAll(): void {
    this.toRelease.clear();
    if (this.releaseTimer) clearImmediate(this.releaseTimer);
    this.releaseTimer = undefined;
    this.d.safely(() => this.ownership.release());
  }
}
