import type { Command } from 'commander';
import { cliQueueDeps, openCliQueue, type CliQueueDeps } from '../../jobs/cli-queue.js';
import { ScanService } from '../../scans/scan-service.js';
import { EXIT } from '../exit-codes.js';
import { describeRemoved, type RemoveIo } from './remove.js';
import { cliLogger } from './test-auth.js';

/**
 * `scan2mesh prune`: removes what ended jobs (done, failed, canceled) left on disk (packed scans,
 * partial downloads, web-mode drops no other job needs), packed scans whose job no longer exists, and
 * drops no job was made from for an hour. The jobs stay listed.
 */
export async function runPrune(
  opts: { json?: boolean },
  deps: CliQueueDeps,
  io: RemoveIo = { out: (t) => process.stdout.write(t) },
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

export function registerPrune(program: Command): void {
  program
    .command('prune')
    .description(
      'Remove what ended jobs left (packed scans, partial downloads, web-mode drops) and packed scans of jobs that no longer exist',
    )
    .option('--json', 'print one JSON document: { removed: [{ kind, path, bytes, jobId }] }')
    .action(async (opts: { json?: boolean }) => {
      const logger = cliLogger(false);
      const scans = new ScanService({ logger });
      try {
        process.exitCode = await runPrune(opts, cliQueueDeps(logger, scans));
      } finally {
        await scans.dispose();
      }
    });
}
