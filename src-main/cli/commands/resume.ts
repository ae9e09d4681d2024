import { isTerminal } from '../../../src-shared/jobs.js';
import { pickConnectionFlags, type ConnectionFlags } from '../../connections/connection-flags.js';
import { EXIT, exitCodeOf, interruptedExit } from '../exit-codes.js';
import { printReports, toReport } from '../job-report.js';
import type { ProgressTarget } from '../progress-view.js';
import { openCliQueue, waitWithProgress, type CliQueue, type CliQueueDeps } from '../queue-driver.js';
import { terminal } from '../terminal-text.js';

export interface ResumeOptions extends ConnectionFlags {
  concurrency?: number;
  json?: boolean;
  verbose?: boolean;
}

export interface QueueIo {
  out: (text: string) => void;
  progress: ProgressTarget;
}

export const defaultQueueIo: QueueIo = { out: terminal.out, progress: process.stderr };

/** Waits for the jobs with a progress display, prints their reports and gives the exit code. */
export async function waitAndReport(
  queue: CliQueue,
  ids: string[],
  json: boolean | undefined,
  io: QueueIo,
): Promise<number> {
  const { views, interrupted, mayExist } = await waitWithProgress(queue, ids, io.progress);
  printReports(
    queue.label,
    views.map((v) => toReport(v, mayExist.includes(v.id))),
    json,
    io.out,
  );
  return interruptedExit(interrupted, mayExist) ?? exitCodeOf(views);
}

/**
 * `scan2mesh resume`: takes up every unfinished job that no running process holds (left by a crash, a
 * reboot or Ctrl+C) and finishes it from where it stood. Exit codes as for submit.
 */
export async function runResume(
  opts: ResumeOptions,
  deps: CliQueueDeps,
  io: QueueIo = defaultQueueIo,
): Promise<number> {
  const limits = opts.concurrency ? { uploads: opts.concurrency, downloads: opts.concurrency } : {};
  const queue = await openCliQueue(pickConnectionFlags(opts), deps, limits);
  try {
    await queue.manager.resumeUnfinished();
    const ids = queue.manager.running();
    const elsewhere = queue.manager.list().filter((v) => !isTerminal(v.state) && !ids.includes(v.id));
    if (elsewhere.length > 0)
      io.progress.write(
        `${elsewhere.length} unfinished job${elsewhere.length === 1 ? ' is' : 's are'} left alone: run by another process, or submitted with a connection these flags do not give (see \`scan2mesh status\`).\n`,
      );
    if (ids.length === 0) {
      if (opts.json) io.out(`${JSON.stringify({ connection: queue.label, jobs: [] }, null, 2)}\n`);
      else io.out('Nothing to resume.\n');
      return EXIT.ok;
    }
    io.progress.write(`Resuming ${ids.length} job${ids.length === 1 ? '' : 's'}.\n`);
    return await waitAndReport(queue, ids, opts.json, io);
  } finally {
    await queue.close();
  }
}
