import type { Command } from 'commander';
import { AppError } from '../../../src-shared/errors.js';
import { cliQueueDeps, openCliQueue, type CliQueueDeps } from '../../jobs/cli-queue.js';
import { ScanService } from '../../scans/scan-service.js';
import type { ConnectionFlags } from '../../service/connection.js';
import { defaultQueueIo, waitAndReport, type QueueIo } from './resume.js';
import { addConnectionOptions, cliLogger, connectionFlags } from './test-auth.js';

export interface RetryOptions extends ConnectionFlags {
  json?: boolean;
  verbose?: boolean;
}

/**
 * `scan2mesh retry <jobId>`: runs a failed or canceled job again and waits for it. The id is the one
 * `scan2mesh status` shows (or its first characters), or the service's job id.
 */
export async function runRetry(
  jobId: string,
  opts: RetryOptions,
  deps: CliQueueDeps,
  io: QueueIo = defaultQueueIo,
): Promise<number> {
  const queue = await openCliQueue(connectionFlags(opts), deps);
  try {
    const job = queue.manager.find(jobId);
    if (!job)
      throw new AppError('bad-input', `There is no job "${jobId}" (or the id fits several).`, {
        action: '`scan2mesh status` lists the jobs and their ids.',
      });
    const again = queue.manager.retry(job.id);
    io.progress.write(
      `Retrying ${again.scanName}${again.remoteJobId ? ` with service job ${again.remoteJobId}` : ' as a new service job'}.\n`,
    );
    return await waitAndReport(queue, [job.id], opts.json, io);
  } finally {
    await queue.close();
  }
}

export function registerRetry(program: Command): void {
  addConnectionOptions(
    program
      .command('retry')
      .description('Run a failed or canceled job again (give the connection flags it was submitted with)')
      .argument('<jobId>', 'the id from `scan2mesh status` (or its first characters), or the service job id')
      .option('--json', 'print one JSON document with the job, its state, outputs and error'),
  ).action(async (jobId: string, opts: RetryOptions) => {
    const logger = cliLogger(opts.verbose);
    const scans = new ScanService({ logger });
    try {
      process.exitCode = await runRetry(jobId, opts, cliQueueDeps(logger, scans));
    } finally {
      await scans.dispose();
    }
  });
}
