import { isTerminal, JOB_STATE_LABELS, type JobView } from '../../../src-shared/jobs.js';
import { openJobDatabase } from '../../jobs/job-db.js';
import { JobStore, type JobRecord } from '../../jobs/job-store.js';
import { toView } from '../../jobs/job-view.js';
import { safeLines } from '../terminal-text.js';
import { processAlive } from '../../platform/process-alive.js';
import { NOT_AS_SAVED, savedOutputState, type SavedOutputState } from '../../jobs/saved-output-state.js';

export interface StatusOptions {
  json?: boolean;
  active?: boolean;
}

/** A job as `status --json` shows it: what the app shows, and which process runs it now. */
interface StatusEntry extends JobView {
  runningInPid?: number;
  /** A stopped job's last trouble since its last step: why it was waiting when its process ended. */
  lastTrouble?: string;
  /** For each of `outputs`, whether its file is still the one the job saved (saved-output-state.ts). */
  outputsOnDisk?: SavedOutputState[];
}

/**
 * `scan2mesh status`: the jobs of the queue the app and the command line share, oldest first. Reads the
 * database only; it never starts, stops or contacts anything.
 */
export function runStatus(opts: StatusOptions, io: { dataDir: string; out: (t: string) => void }): number {
  const db = openJobDatabase(io.dataDir);
  let entries: StatusEntry[];
  try {
    const store = new JobStore(db);
    entries = store
      .list()
      .filter((r) => !opts.active || !isTerminal(r.state))
      .map((r) => {
        const entry: StatusEntry = toView(r);
        if (entry.outputs.length > 0) entry.outputsOnDisk = entry.outputs.map(savedOutputState);
        const pid = runningIn(r);
        if (pid !== undefined) entry.runningInPid = pid;
        else if (!isTerminal(r.state)) {
          const trouble = lastTroubleOf(store, r.id);
          if (trouble) entry.lastTrouble = trouble;
        }
        return entry;
      });
  } finally {
    db.close();
  }
  if (opts.json) {
    io.out(`${JSON.stringify({ jobs: entries }, null, 2)}\n`);
    return 0;
  }
  if (entries.length === 0) {
    io.out(opts.active ? 'No unfinished jobs.\n' : 'No jobs yet.\n');
    return 0;
  }
  const rows = entries.map((e) => [
    e.id.slice(0, 8),
    JOB_STATE_LABELS[e.state] +
      (e.state !== 'done' && !isTerminal(e.state) && e.runningInPid === undefined ? ' (stopped)' : ''),
    e.seriesDescription ? `${e.scanName} (${e.seriesDescription})` : e.scanName,
    tail(e.source ?? '-', 40),
    e.meshes.map((m) => m.structures.join('+') + m.extension).join(', '),
    e.remoteJobId ?? '-',
    detailOf(e),
  ]);
  const head = ['ID', 'STATE', 'SCAN', 'FROM', 'MESHES', 'SERVICE JOB', 'DETAIL'];
  const widths = head.map((h, i) =>
    Math.min(i === 2 ? 36 : 40, Math.max(h.length, ...rows.map((r) => (r[i] as string).length))),
  );
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.slice(0, widths[i]).padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  io.out(`${safeLines([fmt(head), ...rows.map(fmt)])}\n`);
  const stopped = entries.filter((e) => !isTerminal(e.state) && e.runningInPid === undefined).length;
  if (stopped > 0)
    io.out(
      `\n${stopped} unfinished job${stopped === 1 ? ' is' : 's are'} not running; \`scan2mesh resume\` finishes them.\n`,
    );
  return 0;
}

/** The end of a long path, which tells folders of one name apart (…/p1/scan, …/p2/scan). */
const tail = (text: string, max: number): string =>
  text.length <= max ? text : `…${text.slice(-(max - 1))}`;

function detailOf(e: StatusEntry): string {
  if (e.state === 'failed') return e.error?.message ?? '';
  if (e.state === 'done')
    return e.outputs
      .map((o, i) => {
        const state = e.outputsOnDisk?.[i] ?? 'saved';
        return state === 'saved' ? o.path : `${o.path} (${NOT_AS_SAVED[state]})`;
      })
      .join(', ');
  if (e.runningInPid !== undefined) return `${e.progress.stage ?? ''} (pid ${e.runningInPid})`.trim();
  // What a stopped process last said of its progress is stale (STATE says where the job stands);
  // why it was waiting is not.
  return e.lastTrouble ? `was waiting: ${e.lastTrouble}` : '';
}

/** The message of the job's last trouble note, when no step came after it. */
function lastTroubleOf(store: JobStore, id: string): string | undefined {
  const events = store.events(id);
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.kind === 'trouble') return typeof e.detail?.message === 'string' ? e.detail.message : undefined;
    if (e.kind === 'state' || e.kind === 'created') return undefined;
  }
  return undefined;
}

/** The pid of the live process that runs the job, if one does. */
function runningIn(r: JobRecord): number | undefined {
  if (!r.owner || !r.ownerPid || isTerminal(r.state)) return undefined;
  if ((r.leaseUntil ?? 0) < Date.now()) return undefined;
  return processAlive(r.ownerPid) ? r.ownerPid : undefined;
}
