import { AppError } from '../../src-shared/errors.js';

interface Waiter {
  jobId: string;
  priority: number;
  order: number;
  grant: () => void;
  reject: (e: unknown) => void;
  cleanup: () => void;
}

/**
 * A counting semaphore whose waiters are served by priority (higher first), then in the order they
 * came: the job the user is looking at jumps the queue for its next step.
 */
export class PrioritySlots {
  private busy = 0;
  private order = 0;
  private waiters: Waiter[] = [];
  private pumpScheduled = false;

  constructor(
    private limit: number,
    readonly name: string,
  ) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`${name} limit must be a positive integer`);
  }

  get inUse(): number {
    return this.busy;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  setLimit(limit: number): void {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`${this.name} limit must be a positive integer`);
    this.limit = limit;
    this.pump();
  }

  /** Resolves with a release function once a slot is free; rejects with 'canceled' when the signal aborts. */
  acquire(jobId: string, priority: number, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(canceled());
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(canceled());
      };
      const waiter: Waiter = {
        jobId,
        priority,
        order: this.order++,
        grant: () => resolve(this.releaser()),
        reject,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      this.schedulePump();
    });
  }

  /** Raises a waiting job's priority; its place in the line changes at once. */
  reprioritize(jobId: string, priority: number): void {
    for (const w of this.waiters) if (w.jobId === jobId) w.priority = priority;
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.busy--;
      this.pump();
    };
  }

  /**
   * Hands out slots on the next turn of the event loop, so that jobs that ask at the same moment (the
   * queue resumed, a batch submitted) are served by priority rather than by who asked first.
   */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.busy < this.limit && this.waiters.length > 0) {
      let best = 0;
      for (let i = 1; i < this.waiters.length; i++) {
        const w = this.waiters[i] as Waiter;
        const b = this.waiters[best] as Waiter;
        if (w.priority > b.priority || (w.priority === b.priority && w.order < b.order)) best = i;
      }
      const [next] = this.waiters.splice(best, 1) as [Waiter];
      next.cleanup();
      this.busy++;
      next.grant();
    }
  }
}

/** The queue's slots: packaging and uploads share one limit (a package waits for its upload). */
export function queueSlots(
  uploads: number,
  downloads: number,
): { prepare: PrioritySlots; upload: PrioritySlots; download: PrioritySlots } {
  return {
    prepare: new PrioritySlots(uploads, 'prepare'),
    upload: new PrioritySlots(uploads, 'upload'),
    download: new PrioritySlots(downloads, 'download'),
  };
}

/** The pause as one job sees it: the queue's and its own batch's. */
export interface JobGate {
  wait(signal?: AbortSignal): Promise<void>;
  /** True while a new step would have to wait. */
  blocks(): boolean;
}

/** Where a PauseGate keeps its pauses: batch ids, and QUEUE_HOLD for the whole queue. */
export interface HoldStore {
  holds(): string[];
  setHold(key: string, held: boolean): void;
}

/** The whole queue's pause among the holds (a batch id is a UUID, never this). */
const QUEUE_HOLD = '*';

/**
 * Pause for the queue: jobs that have not started wait here (job-runner.ts, input.ts); jobs already
 * under way go on to their end. A key (a batch id) can be held on its own, so one batch waits while
 * the others go on.
 */
export class PauseGate {
  private paused = false;
  private held = new Set<string>();
  private waiters = new Set<{ key: string | undefined; done: () => void }>();

  /**
   * `kept`: where the pauses are kept (the job database), so that a restart keeps them: held in
   * memory only, a paused batch started by itself after the app was restarted (a review).
   */
  constructor(private readonly kept?: HoldStore) {
    for (const key of kept?.holds() ?? []) {
      if (key === QUEUE_HOLD) this.paused = true;
      else this.held.add(key);
    }
  }

  get isPaused(): boolean {
    return this.paused;
  }

  pause(): void {
    this.kept?.setHold(QUEUE_HOLD, true);
    this.paused = true;
  }

  resume(): void {
    this.kept?.setHold(QUEUE_HOLD, false);
    this.paused = false;
    this.wake();
  }

  hold(key: string): void {
    this.kept?.setHold(key, true);
    this.held.add(key);
  }

  release(key: string): void {
    this.kept?.setHold(key, false);
    this.held.delete(key);
    this.wake();
  }

  isHeld(key: string | undefined): boolean {
    return key !== undefined && this.held.has(key);
  }

  /** The gate as one job sees it: the queue's pause and its own batch's. */
  forKey(key: string | undefined): JobGate {
    return { wait: (signal?: AbortSignal) => this.wait(signal, key), blocks: () => this.blocks(key) };
  }

  wait(signal?: AbortSignal, key?: string): Promise<void> {
    if (!this.blocks(key)) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(canceled());
    return new Promise((resolve, reject) => {
      const waiter = {
        key,
        done: (): void => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.waiters.delete(waiter);
        reject(canceled());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
    });
  }

  blocks(key?: string): boolean {
    return this.paused || this.isHeld(key);
  }

  private wake(): void {
    for (const w of [...this.waiters]) {
      if (this.blocks(w.key)) continue;
      this.waiters.delete(w);
      w.done();
    }
  }
}

function canceled(): AppError {
  return new AppError('canceled', 'The job was stopped.');
}
