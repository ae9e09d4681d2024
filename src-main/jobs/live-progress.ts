import { isTerminal } from '../../src-shared/jobs.js';
import type { JobProgress, JobRecord } from './job-record.js';
import type { JobTrouble } from './job-run.js';
import type { JobStore } from './job-store.js';

/** Progress is written now and then, for the other process's list (`scan2mesh status`), not per byte. */
const PROGRESS_WRITE_MS = 2_000;

/**
 * What the runners report between commits: progress of a step (bytes, percent) and the trouble of a
 * step being retried. Shown at once; progress reaches the database at most every PROGRESS_WRITE_MS,
 * trouble never (a restart tries afresh).
 */
export class LiveProgress {
  private readonly live = new Map<string, JobProgress>();
  private readonly trouble = new Map<string, JobTrouble>();
  private readonly written = new Map<string, number>();
  /** Jobs whose progress changed since it was last written. */
  private readonly dirty = new Set<string>();

  progress(id: string, p: JobProgress): void {
    this.live.set(id, p);
    this.dirty.add(id);
  }

  setTrouble(id: string, trouble: JobTrouble | undefined): void {
    if (trouble) this.trouble.set(id, trouble);
    else this.trouble.delete(id);
  }

  /** A commit of the job's state carries its own progress: what was live is superseded. */
  committed(r: JobRecord): void {
    if (isTerminal(r.state)) this.trouble.delete(r.id);
    this.live.delete(r.id);
    this.dirty.delete(r.id);
    this.written.delete(r.id);
  }

  forget(id: string): void {
    this.live.delete(id);
    this.trouble.delete(id);
    this.dirty.delete(id);
    this.written.delete(id);
  }

  /** The progress to show for a job, when it is running. */
  progressOf(r: JobRecord): JobProgress | undefined {
    return isTerminal(r.state) ? undefined : this.live.get(r.id);
  }

  troubleOf(r: JobRecord): JobTrouble | undefined {
    return isTerminal(r.state) ? undefined : this.trouble.get(r.id);
  }

  /** Writes the progress due (all of it when `all`: the queue is closing), in one commit. */
  write(store: JobStore, all: boolean): void {
    if (this.dirty.size === 0) return;
    const now = Date.now();
    const due: [string, JobProgress][] = [];
    for (const id of this.dirty) {
      const p = this.live.get(id);
      if (!p) continue;
      if (!all && now - (this.written.get(id) ?? 0) < PROGRESS_WRITE_MS) continue;
      due.push([id, p]);
    }
    if (due.length === 0) return;
    store.together(() => {
      for (const [id, p] of due) store.updateProgress(id, p);
    });
    for (const [id] of due) {
      this.written.set(id, now);
      this.dirty.delete(id);
    }
  }
}
