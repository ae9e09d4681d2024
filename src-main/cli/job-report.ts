import type { AppErrorShape } from '../../src-shared/errors.js';
import { isTerminal, type JobView } from '../../src-shared/jobs.js';
import { safeLines } from './terminal-text.js';

/** One job as the queue commands (submit, resume, retry) report it, in --json and in text. */
export interface JobReport {
  scan: string;
  series: string;
  /** The series key, as `scan2mesh status --json` and submit's `scans` give it: two series of one folder share scan and series names. */
  seriesId?: string;
  jobId: string | null;
  /** 'stopped': interrupted (Ctrl+C) before it ended; it stays in the queue and `resume` finishes it. */
  state: 'done' | 'failed' | 'canceled' | 'stopped';
  outputs: { structures: string[]; path: string; bytes: number; note?: string }[];
  error: AppErrorShape | null;
}

/** The --json and text report of one job, as `scan2mesh submit` has always printed it. */
export function toReport(v: JobView, creationUnconfirmed = false): JobReport {
  const state: JobReport['state'] = isTerminal(v.state)
    ? v.state === 'done' || v.state === 'canceled'
      ? v.state
      : 'failed'
    : 'stopped';
  return {
    scan: v.scanName,
    series: v.seriesDescription,
    ...(v.seriesId !== undefined ? { seriesId: v.seriesId } : {}),
    jobId: v.remoteJobId ?? null,
    state,
    outputs: v.outputs.map((o) => ({
      structures: o.structures,
      path: o.path,
      bytes: o.bytes,
      ...(o.note ? { note: o.note } : {}),
    })),
    error: v.error
      ? {
          code: v.error.code,
          message: v.error.message,
          ...(v.error.action !== undefined ? { action: v.error.action } : {}),
          ...(v.error.retryable !== undefined ? { retryable: v.error.retryable } : {}),
        }
      : state === 'stopped'
        ? creationUnconfirmed
          ? {
              code: 'job-may-exist',
              message: 'Stopped while the job was being created: the service may have it.',
              action: `Check with the service operator for a job created at that time; submit it again only if there is none (\`scan2mesh retry ${v.id} --resubmit\`): the service may bill twice.`,
            }
          : { code: 'canceled', message: `Stopped while ${v.state}; \`scan2mesh resume\` finishes it.` }
        : null,
  };
}

/** The end of a run: one JSON document with --json, else a block per job. */
export function printReports(
  connection: string,
  reports: JobReport[],
  json: boolean | undefined,
  out: (text: string) => void,
): void {
  if (json) out(`${JSON.stringify({ connection, jobs: reports }, null, 2)}\n`);
  else out(formatReports(reports));
}

const HEADS: Record<JobReport['state'], string> = {
  done: 'done  ',
  failed: 'FAILED',
  canceled: 'CANCELED',
  stopped: 'STOPPED',
};

function formatReports(reports: JobReport[]): string {
  const lines: string[] = [];
  for (const r of reports) {
    const head = `${HEADS[r.state]} ${r.scan}${
      r.series ? ` (${r.series})` : ''
    }${r.jobId ? `  job ${r.jobId}` : ''}`;
    lines.push(head);
    for (const o of r.outputs)
      lines.push(`       ${o.path}  ${formatMiB(o.bytes)}${o.note ? `  — ${o.note}` : ''}`);
    if (r.error) {
      lines.push(`       ${r.error.message}`);
      if (r.error.action) lines.push(`       ${r.error.action}`);
    }
  }
  const done = reports.filter((r) => r.state === 'done').length;
  lines.push(`${done} of ${reports.length} job${reports.length > 1 ? 's' : ''} done.`);
  return `${safeLines(lines)}\n`;
}

function formatMiB(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}
