import { isTerminal, type JobState } from '../../src-shared/job-states';
import type { JobView } from '../../src-shared/jobs';
import { progressFraction } from './job-format';

/** The states a person filters by: a job is waiting, running, or ended one of three ways. */
export const STATE_FILTERS = ['all', 'waiting', 'running', 'done', 'failed', 'canceled'] as const;
export type StateFilter = (typeof STATE_FILTERS)[number];
export type StateGroup = Exclude<StateFilter, 'all'>;

function stateGroup(state: JobState): StateGroup {
  if (state === 'queued') return 'waiting';
  if (state === 'done' || state === 'failed' || state === 'canceled') return state;
  return 'running';
}

export function matchesFilter(job: JobView, filter: StateFilter): boolean {
  return filter === 'all' || stateGroup(job.state) === filter;
}

/**
 * How much of a job's work each step is, roughly: processing (the segmentation) is most of it. Used
 * to turn "uploading, 40%" into one number for the batch; an estimate, shown as one.
 */
const STEP_SPAN: Partial<Record<JobState, [start: number, size: number]>> = {
  preparing: [0, 0.05],
  submitting: [0.05, 0.05],
  uploading: [0.1, 0.15],
  notifying: [0.25, 0.05],
  processing: [0.3, 0.6],
  downloading: [0.9, 0.1],
};

/** 0..1 of one job's whole way: finished jobs count whole, waiting ones as nothing. */
export function jobShare(job: JobView): number {
  if (isTerminal(job.state)) return 1;
  const span = STEP_SPAN[job.state];
  if (!span) return 0;
  return span[0] + span[1] * (progressFraction(job) ?? 0);
}

export interface BatchSummary {
  batchId: string;
  jobs: JobView[];
  counts: Record<StateGroup, number>;
  /** 0..1 over all its jobs. */
  progress: number;
  elapsedMs: number;
  /** Milliseconds still to go, when there is enough to go on; null before that or once it is over. */
  etaMs: number | null;
  /** Where its meshes go: the folder all its jobs write under. */
  outputDir: string;
  /** A job and output index to show in the file manager, once a mesh exists. */
  revealable: { jobId: string; index: number } | null;
  finished: boolean;
  paused: boolean;
}

/** The longest common folder of the given paths ('/' and '\\' both separate). */
export function commonFolder(paths: readonly string[]): string {
  if (paths.length === 0) return '';
  const split = paths.map((p) => p.split(/[\\/]/));
  const first = split[0]!;
  let n = first.length;
  for (const parts of split.slice(1)) {
    let i = 0;
    while (i < n && i < parts.length && parts[i] === first[i]) i++;
    n = i;
  }
  const sep = paths[0]!.includes('\\') && !paths[0]!.includes('/') ? '\\' : '/';
  return first.slice(0, n).join(sep);
}

/** One batch as its row shows it. `now` is the clock's reading, so the result is pure. */
export function summarizeBatch(batchId: string, jobs: readonly JobView[], now: number): BatchSummary {
  const counts: Record<StateGroup, number> = { waiting: 0, running: 0, done: 0, failed: 0, canceled: 0 };
  let share = 0;
  for (const j of jobs) {
    counts[stateGroup(j.state)]++;
    share += jobShare(j);
  }
  const progress = jobs.length > 0 ? share / jobs.length : 0;
  const finished = jobs.every((j) => isTerminal(j.state));
  const start = Math.min(...jobs.map((j) => Date.parse(j.createdAt)));
  const end = finished ? Math.max(...jobs.map((j) => Date.parse(j.finishedAt ?? j.updatedAt))) : now;
  const elapsed = Number.isFinite(start) && Number.isFinite(end) ? Math.max(0, end - start) : 0;
  // From the pace so far: only once a job has ended, because the first steps (preparing a package)
  // run at a different pace from the rest and would make an early estimate swing wildly.
  const ended = counts.done + counts.failed + counts.canceled;
  const etaMs =
    !finished && ended > 0 && progress > 0 ? Math.round((elapsed / progress) * (1 - progress)) : null;
  const withOutputs = jobs.find((j) => j.outputs.length > 0);
  const outputs = jobs.flatMap((j) => j.outputs.map((o) => o.path));
  const folder = outputs.length > 0 ? commonFolder(outputs.map((p) => p.replace(/[\\/][^\\/]*$/, ''))) : '';
  return {
    batchId,
    jobs: [...jobs],
    counts,
    progress,
    elapsedMs: elapsed,
    etaMs,
    outputDir: folder || jobs[0]?.outputDir || '',
    revealable: withOutputs ? { jobId: withOutputs.id, index: 0 } : null,
    finished,
    paused: jobs.some((j) => j.batchPaused === true),
  };
}

/**
 * The list as the screen shows it: jobs of one submit together, newest batch first. A job without a
 * batch (from an older version) is its own group.
 */
export function groupByBatch(jobs: readonly JobView[]): { batchId: string; jobs: JobView[] }[] {
  const groups = new Map<string, JobView[]>();
  for (const j of jobs) {
    const key = j.batchId ?? `job:${j.id}`;
    const g = groups.get(key);
    if (g) g.push(j);
    else groups.set(key, [j]);
  }
  return [...groups.entries()].map(([batchId, js]) => ({ batchId, jobs: js }));
}
