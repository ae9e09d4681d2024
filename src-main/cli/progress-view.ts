import { clearScreenDown, moveCursor } from 'node:readline';
import { isTerminal, JOB_STATE_LABELS, type JobState, type JobView } from '../../src-shared/jobs.js';
import { retryWhen } from '../jobs/job-errors.js';
import { jobFraction } from '../jobs/job-fraction.js';
import { oneLine, safeLines } from './terminal-text.js';

interface ProgressSource {
  get(id: string): JobView | undefined;
  /** The job's events, oldest first; when given, plain lines show every step, not only the latest. */
  history?(id: string): {
    seq: number;
    at?: string;
    kind: string;
    to?: JobState;
    detail?: Record<string, unknown>;
  }[];
  onChange(listener: (changed: JobView[]) => void): () => void;
}

export interface ProgressTarget {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}

/**
 * Shows the jobs of a command while they run: on a terminal, one line per job redrawn in place; in a
 * pipe or a log file, one plain line each time a job changes state. Returns a function that draws the
 * last picture and stops.
 */
export function showProgress(source: ProgressSource, ids: string[], target: ProgressTarget): () => void {
  return target.isTTY ? liveLines(source, ids, target) : plainLines(source, ids, target);
}

function plainLines(source: ProgressSource, ids: string[], target: ProgressTarget): () => void {
  const wanted = new Set(ids);
  const lastSeq = new Map<string, number>();
  const lastState = new Map<string, JobState>();
  const print = (v: JobView, to: JobState): void => {
    const time = new Date().toTimeString().slice(0, 8);
    const extra =
      to === 'failed' && v.error
        ? `: ${v.error.message}`
        : (to === 'uploading' || to === 'processing') && v.remoteJobId
          ? ` (job ${v.remoteJobId})`
          : '';
    target.write(`${oneLine(`${time} ${nameOf(v)}: ${JOB_STATE_LABELS[to].toLowerCase()}${extra}`)}\n`);
  };
  const printTrouble = (v: JobView, e: { at?: string; detail?: Record<string, unknown> }): void => {
    const message = typeof e.detail?.message === 'string' ? e.detail.message : 'A step failed.';
    const waitMs = typeof e.detail?.waitMs === 'number' ? e.detail.waitMs : 0;
    const from = e.at ? Date.parse(e.at) : Date.now();
    const time = new Date().toTimeString().slice(0, 8);
    const later = waitMs > 10 * 60_000 ? ' (Ctrl+C stops waiting; `scan2mesh resume` goes on later)' : '';
    target.write(
      `${oneLine(`${time} ${nameOf(v)}: ${message} Trying again ${retryWhen(from + waitMs)}${later}.`)}\n`,
    );
  };
  const report = (v: JobView): void => {
    if (!wanted.has(v.id)) return;
    // Every step from the job's history, not only the state seen now: a log shows the whole way.
    if (source.history) {
      for (const e of source.history(v.id)) {
        if (e.seq <= (lastSeq.get(v.id) ?? -1)) continue;
        if ((e.kind === 'state' || e.kind === 'created') && e.to) print(v, e.to);
        // A step that failed and waits for its next try: why, and until when (a Retry-After of a
        // day would otherwise leave a log silent for a day).
        else if (e.kind === 'trouble') printTrouble(v, e);
        else continue;
        lastSeq.set(v.id, e.seq);
      }
    } else if (lastState.get(v.id) !== v.state) {
      lastState.set(v.id, v.state);
      print(v, v.state);
    }
  };
  for (const id of ids) {
    const v = source.get(id);
    if (!v) continue;
    // Where the job stands now, once; the steps of an earlier run (a resumed job) are not replayed.
    const seen = source.history?.(id) ?? [];
    lastSeq.set(
      id,
      seen.reduce((max, e) => Math.max(max, e.seq), -1),
    );
    lastState.set(id, v.state);
    print(v, v.state);
  }
  return source.onChange((views) => views.forEach(report));
}

function liveLines(source: ProgressSource, ids: string[], target: ProgressTarget): () => void {
  let drawn = 0;
  const draw = (): void => {
    const width = Math.max(40, (target.columns ?? 80) - 1);
    const maxLines = Math.max(3, (target.rows ?? 24) - 2);
    const views = ids.map((id) => source.get(id)).filter((v): v is JobView => v !== undefined);
    let shown = views;
    let summary: string | undefined;
    if (views.length > maxLines) {
      // More jobs than the terminal has rows: the ones under way, then a count of the rest.
      const active = views.filter((v) => !isTerminal(v.state) && v.state !== 'queued');
      shown = active.slice(0, maxLines - 1);
      const count = (s: string[]) => views.filter((v) => s.includes(v.state)).length;
      summary = `… ${count(['queued'])} waiting, ${count(['done'])} done, ${count(['failed', 'canceled'])} failed or canceled`;
    }
    const lines = shown.map((v) => lineOf(v, width));
    if (summary) lines.push(summary.slice(0, width));
    if (drawn > 0) {
      moveCursor(target as NodeJS.WritableStream, 0, -drawn);
      clearScreenDown(target as NodeJS.WritableStream);
    }
    // The cursor moves above are this view's own; nothing from a job's text may move it.
    target.write(lines.length > 0 ? `${safeLines(lines)}\n` : '');
    drawn = lines.length;
  };
  let pending = false;
  const off = source.onChange(() => {
    if (pending) return;
    pending = true;
    setTimeout(() => {
      pending = false;
      draw();
    }, 150).unref();
  });
  draw();
  return () => {
    off();
    draw();
  };
}

const BAR = 16;

function lineOf(v: JobView, width: number): string {
  const f = v.state === 'done' ? 1 : isTerminal(v.state) ? 0 : jobFraction(v.state, v.progress.fraction);
  const filled = Math.round(f * BAR);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR - filled)}]`;
  const state = JOB_STATE_LABELS[v.state].padEnd(19);
  const detail =
    v.state === 'failed'
      ? (v.error?.message ?? '')
      : v.state === 'done'
        ? `${v.outputs.length} mesh${v.outputs.length === 1 ? '' : 'es'} saved`
        : (v.progress.stage ?? '');
  const name = nameOf(v).slice(0, 28).padEnd(28);
  return `${name} ${state} ${bar} ${String(Math.round(f * 100)).padStart(3)}%  ${detail}`.slice(0, width);
}

function nameOf(v: JobView): string {
  return v.seriesDescription ? `${v.scanName} (${v.seriesDescription})` : v.scanName;
}
