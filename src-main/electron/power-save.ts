import type { EventPayload } from '../../src-shared/contract.js';
import { isTerminal } from '../../src-shared/jobs.js';

/** The part of Electron's powerSaveBlocker the guard uses. */
export interface PowerSaveBlockerLike {
  start(type: 'prevent-app-suspension'): number;
  stop(id: number): void;
}

/**
 * Keeps the computer from sleeping while the queue has unfinished jobs, so an overnight batch is not
 * frozen half-way when the screen locks; lets it sleep again when every job is done, failed or canceled,
 * or when the user pauses the queue. The display may still turn off ('prevent-app-suspension').
 * It listens to the core's jobs.changed events from outside the job manager.
 */
export class PowerSaveGuard {
  private readonly unfinished = new Set<string>();
  private paused = false;
  private blockerId: number | null = null;

  constructor(private readonly blocker: PowerSaveBlockerLike) {}

  onJobsChanged(payload: EventPayload<'jobs.changed'>): void {
    this.paused = payload.paused;
    for (const job of payload.jobs) {
      if (isTerminal(job.state)) this.unfinished.delete(job.id);
      else this.unfinished.add(job.id);
    }
    this.apply(!this.paused && this.unfinished.size > 0);
  }

  get blocking(): boolean {
    return this.blockerId !== null;
  }

  dispose(): void {
    this.apply(false);
  }

  private apply(block: boolean): void {
    if (block && this.blockerId === null) this.blockerId = this.blocker.start('prevent-app-suspension');
    if (!block && this.blockerId !== null) {
      this.blocker.stop(this.blockerId);
      this.blockerId = null;
    }
  }
}
