import { AppError } from '../../src-shared/errors.js';
import type { JobState } from '../../src-shared/jobs.js';
import type { JobPatch, JobRecord, TransitionExtras } from './job-record.js';

/** A state change asked of the store (see JobStore.transition), to be written with the others of its turn. */
export interface AskedTransition {
  id: string;
  to: JobState;
  patch: JobPatch;
  detail: Record<string, unknown> | undefined;
  extras: TransitionExtras;
}

interface Waiting extends AskedTransition {
  /** Asked when the batch is written: true when the change is no longer wanted (its runner stopped). */
  withdrawn: (() => boolean) | undefined;
  resolve: (record: JobRecord) => void;
  reject: (error: unknown) => void;
}

/**
 * State changes asked in one turn of the event loop, written at its end in one transaction: a queue
 * of a few jobs at once asks for several changes in the same turn more often than not (a poll answered
 * here, an upload finished there), and each commit costs more than the rows it writes. Whoever asked
 * hears of its change once it is committed, so that nothing acts on a state before it is written
 * (crash safety is unchanged); the price is one turn of the loop.
 */
export class TransitionBatch {
  private waiting: Waiting[] = [];
  private timer: NodeJS.Immediate | undefined;

  /** `write` commits the changes together and says, for each, its record or why it was refused. */
  constructor(private readonly write: (batch: AskedTransition[]) => (JobRecord | Error)[]) {}

  ask(change: AskedTransition, withdrawn?: () => boolean): Promise<JobRecord> {
    return new Promise<JobRecord>((resolve, reject) => {
      this.waiting.push({ ...change, withdrawn, resolve, reject });
      this.timer ??= setImmediate(() => this.flush());
    });
  }

  /** Writes what is waiting now (at the end of the turn, or before the store closes). */
  flush(): void {
    if (this.timer) clearImmediate(this.timer);
    this.timer = undefined;
    const wanted = this.waiting.splice(0).filter((w) => {
      if (!w.withdrawn?.()) return true;
      w.reject(new AppError('canceled', 'The job was stopped.'));
      return false;
    });
    if (wanted.length === 0) return;
    let outcomes: (JobRecord | Error)[];
    try {
      outcomes = this.write(wanted);
    } catch (e) {
      for (const w of wanted) w.reject(e);
      return;
    }
    wanted.forEach((w, i) => {
      const outcome = outcomes[i];
      if (outcome instanceof Error) w.reject(outcome);
      else w.resolve(outcome as JobRecord);
    });
  }
}
