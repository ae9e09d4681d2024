import { isTerminal, type JobView } from '../../src-shared/jobs.js';
import { jobFraction } from './job-fraction.js';

/** What the desktop shows of the queue, from the outside: the change events and a few questions. */
export interface QueueEvents {
  onChange(listener: (changed: JobView[]) => void): () => void;
  /** This process ran (or runs) the job: the desktop speaks only of its own work. */
  ranHere(jobId: string): boolean;
  /** Every job of a batch, as it stands. */
  batch(batchId: string): JobView[];
}

export interface DesktopSinks {
  notify?: (title: string, body: string) => void;
  /** The taskbar's bar, 0..1; null hides it. */
  setProgress?: (fraction: number | null) => void;
}

/**
 * Desktop notifications (a job failed; a batch finished) and taskbar progress, listening to the
 * queue's changes. Kept from the views it is sent, so that a change costs nothing but its own jobs.
 * Returns the way to stop listening.
 */
export function attachDesktopSignals(queue: QueueEvents, sinks: DesktopSinks): () => void {
  if (!sinks.notify && !sinks.setProgress) return () => {};
  /** Jobs run here since the bar was last hidden, and how far each is. */
  const tracked = new Map<string, number>();
  const active = new Set<string>();
  const notified = new Set<string>();
  /** The states seen of each batch's jobs: a batch is looked up only when all of them have ended. */
  const batches = new Map<string, Map<string, boolean>>();

  const onFailed = (v: JobView): void => {
    const key = `${v.id}:${v.finishedAt ?? ''}`;
    if (notified.has(key)) return;
    notified.add(key);
    sinks.notify?.('A scan2mesh job failed', `${v.scanName}: ${v.error?.message ?? 'unknown error'}`);
  };

  const onBatchEnd = (batchId: string): void => {
    const key = `batch:${batchId}`;
    if (notified.has(key)) return;
    const batch = queue.batch(batchId);
    if (!batch.every((j) => isTerminal(j.state))) return;
    notified.add(key);
    batches.delete(batchId);
    const done = batch.filter((j) => j.state === 'done').length;
    const failed = batch.filter((j) => j.state === 'failed').length;
    sinks.notify?.(
      'scan2mesh batch finished',
      `${done} of ${batch.length} job${batch.length === 1 ? '' : 's'} done` +
        (failed ? `, ${failed} failed` : '') +
        '.',
    );
  };

  return queue.onChange((changed) => {
    let ended: string[] = [];
    for (const v of changed) {
      if (!queue.ranHere(v.id)) continue;
      const over = isTerminal(v.state);
      if (over) active.delete(v.id);
      else active.add(v.id);
      tracked.set(v.id, over ? 1 : jobFraction(v.state, v.progress.fraction));
      if (!sinks.notify) continue;
      if (v.state === 'failed') onFailed(v);
      if (!v.batchId || notified.has(`batch:${v.batchId}`)) continue;
      const seen = batches.get(v.batchId) ?? new Map<string, boolean>();
      batches.set(v.batchId, seen);
      seen.set(v.id, over);
      if (over && [...seen.values()].every(Boolean)) ended.push(v.batchId);
    }
    ended = [...new Set(ended)];
    for (const b of ended) onBatchEnd(b);
    if (!sinks.setProgress || tracked.size === 0) return;
    if (active.size === 0) {
      tracked.clear();
      sinks.setProgress(null);
    } else {
      let sum = 0;
      for (const f of tracked.values()) sum += f;
      sinks.setProgress(sum / tracked.size);
    }
  });
}
