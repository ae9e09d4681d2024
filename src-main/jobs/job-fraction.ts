import type { JobState } from '../../src-shared/jobs.js';

/** Each state's share of a job's way from queued to done, for one bar per job and the taskbar. */
const STATE_SPAN: Record<JobState, [number, number]> = {
  queued: [0, 0],
  preparing: [0, 0.1],
  submitting: [0.1, 0.12],
  uploading: [0.12, 0.45],
  notifying: [0.45, 0.47],
  processing: [0.47, 0.85],
  downloading: [0.85, 1],
  done: [1, 1],
  failed: [1, 1],
  canceled: [1, 1],
};

/** How far a job is, 0..1, from its state and the fraction of that state's step. */
export function jobFraction(state: JobState, stepFraction: number | undefined): number {
  const [from, to] = STATE_SPAN[state];
  return from + (to - from) * Math.min(1, Math.max(0, stepFraction ?? 0));
}
