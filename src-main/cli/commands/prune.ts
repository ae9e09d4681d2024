import { EXIT } from '../exit-codes.js';
import { openCliQueue, type CliQueueDeps } from '../queue-driver.js';
import { describeRemoved, type RemoveIo } from './remove.js';
import { terminal } from '../terminal-text.js';

/**
 * `scan2mesh prune`: removes what ended jobs (done, failed, canceled) left on disk (packed scans,
 * partial downloads, web-mode drops no other job needs), packed scans whose job no longer exists, and
 * drops no job was made from for an hour. The jobs stay listed.
 */
export async function runPrune(
  opts: { json?: boolean },
  deps: CliQueueDeps,
  io: RemoveIo = { out: terminal.out },
): Promise<number> {
  const queue = await openCliQueue({}, deps);
  try {
    const removed = await queue.manager.prune();
    if (opts.json) io.out(`${JSON.stringify({ removed }, null, 2)}\n`);
    else io.out(removed.length === 0 ? 'Nothing to remove.\n' : describeRemoved(removed));
    return EXIT.ok;
  } finally {
    await queue.close();
  }
}
