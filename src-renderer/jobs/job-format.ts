import { isTerminal, JOB_STATE_LABELS, type JobState } from '../../src-shared/job-states';
import type { JobView } from '../../src-shared/jobs';
import { structureLabel } from '../structures/structure-selection';

export type Tone = 'neutral' | 'active' | 'ok' | 'danger' | 'muted';

export function stateTone(state: JobState): Tone {
  if (state === 'done') return 'ok';
  if (state === 'failed') return 'danger';
  if (state === 'canceled') return 'muted';
  if (state === 'queued') return 'neutral';
  return 'active';
}

/** 0..1 when the current phase says how far it is, null when it does not (an indeterminate bar). */
export function progressFraction(job: JobView): number | null {
  const p = job.progress;
  if (p.bytesTotal && p.bytesTotal > 0 && p.bytesDone !== undefined)
    return Math.min(1, Math.max(0, p.bytesDone / p.bytesTotal));
  if (p.fraction !== undefined) return p.fraction;
  return null;
}

/** Milliseconds the job has been running (or ran): from start, or creation, to finish or now. */
export function elapsedMs(job: JobView, now: number): number {
  const start = Date.parse(job.startedAt ?? job.createdAt);
  const end = job.finishedAt
    ? Date.parse(job.finishedAt)
    : isTerminal(job.state)
      ? Date.parse(job.updatedAt)
      : now;
  return Number.isFinite(start) && Number.isFinite(end) ? Math.max(0, end - start) : 0;
}

/** "Mandible, Both mandibular canals (2 files, STL)" */
export function describeMeshes(job: JobView): string {
  const names = job.meshes.flatMap((m) => m.structures);
  const shown =
    names.slice(0, 4).map(structureLabel).join(', ') + (names.length > 4 ? `, +${names.length - 4}` : '');
  const exts = [...new Set(job.meshes.map((m) => m.extension.slice(1).toUpperCase()))].join('/');
  const files = job.meshes.length === 1 ? '1 file' : `${job.meshes.length} files`;
  return `${shown} (${files}, ${exts})`;
}

export interface ErrorAction {
  kind: 'retry' | 'resubmit' | 'edit-connection' | 'reveal' | 'rescan';
  label: string;
}

/** What the user can do about a failed job, best first, chosen from the error's kind. */
export function errorActions(job: JobView, localEngine: boolean): ErrorAction[] {
  if (job.state !== 'failed' && job.state !== 'canceled') return [];
  const out: ErrorAction[] = [];
  const code = job.error?.code;
  if (job.state === 'failed' && code === 'job-may-exist')
    // Never a plain "Retry": the user checks the service first and knowingly sends the job again.
    out.push({ kind: 'resubmit', label: 'Submit again (the service may bill twice)' });
  else if (
    job.state === 'canceled' ||
    // A refusal the error says is final (the local engine's) would come again: no Retry for it.
    (job.error?.retryable !== false && !(code === 'job-failed' && localEngine)) ||
    code === 'network' ||
    code === 'service' ||
    // Space the user frees, or a job the service forgot (sent again as a new job): worth a retry.
    code === 'disk-full' ||
    code === 'job-unknown'
  )
    out.push({ kind: 'retry', label: 'Retry' });
  if ((code === 'auth-failed' || code === 'network' || code === 'service') && !localEngine)
    out.push({ kind: 'edit-connection', label: 'Edit connection' });
  if (code === 'bad-input' || (code === 'job-failed' && localEngine))
    out.push({ kind: 'rescan', label: 'Back to scans' });
  if (job.outputs.length > 0) out.push({ kind: 'reveal', label: 'Show files' });
  return out;
}

/**
 * The jobs of a lot that a retry may change: those whose own row offers Retry (errorActions). A review
 * found "Retry failed" running 19 jobs again that the local engine had refused, to fail alike.
 */
export function retriable(jobs: readonly JobView[], localProfiles: ReadonlySet<string>): JobView[] {
  return jobs.filter((j) => errorActions(j, localProfiles.has(j.profileId)).some((a) => a.kind === 'retry'));
}

/**
 * Counts for the screen's head and the navigation: jobs under way, jobs waiting their turn (queued,
 * or held by a paused batch: a review saw 22 held jobs counted as "running"), done and failed.
 */
export function summarizeJobs(jobs: readonly JobView[]): {
  active: number;
  waiting: number;
  done: number;
  failed: number;
} {
  let active = 0;
  let waiting = 0;
  let done = 0;
  let failed = 0;
  for (const j of jobs) {
    if (j.state === 'done') done++;
    else if (j.state === 'failed') failed++;
    else if (j.state === 'queued') waiting++;
    else if (!isTerminal(j.state)) active++;
  }
  return { active, waiting, done, failed };
}

/**
 * The step a job is at, by name: the local engine's own words ("reading 250 DICOM files",
 * "extracting the surface of mandible") become the five stages a person follows; other services' text
 * is shown as they give it, and a job without any shows its state.
 */
export function stageName(job: JobView): string {
  const raw = job.progress.stage?.trim();
  if (!raw) return JOB_STATE_LABELS[job.state];
  if (raw === 'paused') return job.state === 'queued' ? 'Held: paused' : JOB_STATE_LABELS[job.state];
  const s = raw.toLowerCase();
  if (/^(unpacking|reading|deriving thresholds)/.test(s)) return 'Reading the scan';
  if (s.startsWith('segmenting')) return 'Segmenting';
  if (s.startsWith('extracting the surface')) return 'Making the surface';
  if (/^(smoothing|simplifying)/.test(s)) return 'Simplifying';
  if (s.startsWith('writing')) return 'Writing the mesh';
  if (s === 'waiting for the service' || s === 'processing') return JOB_STATE_LABELS[job.state];
  // Sent, and waiting for its turn where it is processed (the engine takes one job at a time): a review
  // read "Processing" over "Queued · 0 %" as two contradicting states.
  if (s === 'queued') return 'Sent, waiting its turn';
  return raw.charAt(0).toUpperCase() + raw.slice(1);
}

/** "Segmenting · 42 %": the stage, and the percent when the step tells how far it is. */
export function progressText(job: JobView): string {
  const name = stageName(job);
  const f = progressFraction(job);
  const bytes = job.progress.bytesTotal !== undefined;
  const waiting = job.progress.stage?.trim().toLowerCase() === 'queued';
  return f !== null && !bytes && !waiting ? `${name} · ${Math.round(f * 100)} %` : name;
}

/**
 * Newest submission first, as a person looks for what they just did; the jobs of one submission (made
 * at the same moment) in the order they were submitted: the order the technician picked the scans in,
 * the order they are processed in (so the running one is near the top and the rest follow it), and
 * the order of their de-identified names "Series 1", "Series 2"... Sorting them by scan name instead
 * put Series 5, 3, 2, 4, 1 in a review (scans of one name, ties broken by random id) and separated a
 * row from its neighbours in the queue.
 */
export const jobOrder = (jobs: JobView[]): JobView[] =>
  [...jobs].sort(
    (a, b) =>
      b.createdAt.localeCompare(a.createdAt) || b.priority - a.priority || a.submissionSeq - b.submissionSeq,
  );
