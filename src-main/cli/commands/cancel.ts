import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isTerminal } from '../../../src-shared/job-states.js';
import type { JobView } from '../../../src-shared/jobs.js';
import { packageDirOf } from '../../jobs/job-leftovers.js';
import { EXIT } from '../exit-codes.js';
import { jobNamed } from './job-named.js';
import { openCliQueue, type CliQueueDeps } from '../queue-driver.js';
import { terminal } from '../terminal-text.js';

export interface CancelIo {
  out: (text: string) => void;
}

const defaultIo: CancelIo = { out: terminal.out };

/**
 * `scan2mesh cancel <jobId>...`: stops jobs for good through the shared queue. A job this command's
 * queue does not run (the app's, another command's) is marked canceled in the queue's database; the
 * process running it sees that within a second or two, stops, and removes what the job left (its packed
 * scan, partial downloads). The service has no cancel call: a job already there runs on there. Every
 * id is looked up before any job is touched.
 */
export async function runCancel(
  jobIds: string[],
  opts: { json?: boolean },
  deps: CliQueueDeps,
  io: CancelIo = defaultIo,
): Promise<number> {
  const queue = await openCliQueue({}, deps);
  try {
    const jobs = jobIds.map((id) => jobNamed(queue.manager, id));
    const results = jobs.map((job) => ({ job, now: queue.manager.cancel(job.id) }));
    // Closing waits for what this process removes of a job no live process runs.
    await queue.close();
    if (opts.json) {
      const out = results.map(({ job, now }) => ({ job: job.id, was: job.state, state: now.state }));
      io.out(`${JSON.stringify({ jobs: out }, null, 2)}\n`);
    } else
      for (const { job } of results)
        io.out(cancelWords(job, existsSync(packageDirOf(join(deps.dataDir, 'packages'), job.id))));
    return EXIT.ok;
  } finally {
    await queue.close();
  }
}

/** What became of one job, as the terminal says it; `packed`: its packed scan is still on disk. */
function cancelWords(job: JobView, packed: boolean): string {
  const name = `${job.id.slice(0, 8)} (${job.scanName})`;
  if (isTerminal(job.state)) return `Job ${name} had already ended (${job.state}): nothing to cancel.\n`;
  const remote = job.remoteJobId
    ? ` Service job ${job.remoteJobId} is not canceled there: the service has no cancel.`
    : '';
  // A process running it removes the packed scan as it stops; one killed leaves it to the next queue
  // that opens (job-files.ts sweep).
  const left = packed
    ? ' The process running it removes its packed scan as it stops (if that process was killed, the app or the next `submit`, `resume` or `prune` does).'
    : '';
  return `Canceled job ${name}, which was ${job.state}; a process running it stops within seconds.${left}${remote}\n`;
}
