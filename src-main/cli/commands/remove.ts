import type { Leftover } from '../../jobs/job-leftovers.js';
import { EXIT } from '../exit-codes.js';
import { jobNamed } from './job-named.js';
import { formatBytes } from '../../../src-shared/format-bytes.js';
import { openCliQueue, type CliQueueDeps } from '../queue-driver.js';
import { terminal } from '../terminal-text.js';

export interface RemoveIo {
  out: (text: string) => void;
}

const defaultIo: RemoveIo = { out: terminal.out };

/**
 * `scan2mesh remove <jobId>`: removes a job that no process runs from the shared queue, with the
 * package of its scan (a copy of patient data) and any partial download. Saved meshes stay.
 */
export async function runRemove(
  jobId: string,
  opts: { json?: boolean },
  deps: CliQueueDeps,
  io: RemoveIo = defaultIo,
): Promise<number> {
  const queue = await openCliQueue({}, deps);
  try {
    const job = jobNamed(queue.manager, jobId);
    const removed = await queue.manager.remove(job.id);
    if (opts.json) io.out(`${JSON.stringify({ job: job.id, removed }, null, 2)}\n`);
    else {
      io.out(`Removed job ${job.id.slice(0, 8)} (${job.scanName}, ${job.state}) from the queue.\n`);
      io.out(describeRemoved(removed));
      if (job.outputs.length > 0) io.out('Its saved meshes were kept.\n');
    }
    return EXIT.ok;
  } finally {
    await queue.close();
  }
}

/** One line per item removed from the disk, and the total; "Nothing else…" when there was none. */
export function describeRemoved(removed: Leftover[]): string {
  if (removed.length === 0) return 'Nothing else was left on disk.\n';
  const lines = removed.map((r) => `  ${r.kind}: ${r.path} (${formatBytes(r.bytes)})\n`);
  const total = removed.reduce((n, r) => n + r.bytes, 0);
  return `Removed from disk:\n${lines.join('')}  in all ${formatBytes(total)}\n`;
}
