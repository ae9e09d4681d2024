import type { Command } from 'commander';
import { AppError } from '../../../src-shared/errors.js';
import { cliQueueDeps, openCliQueue, type CliQueueDeps } from '../../jobs/cli-queue.js';
import { ScanService } from '../../scans/scan-service.js';
import type { ConnectionFlags } from '../../service/connection.js';
import { CliExit, EXIT } from '../exit-codes.js';
import { defaultQueueIo, waitAndReport, type QueueIo } from './resume.js';
import { addConnectionOptions, cliLogger, connectionFlags } from './test-auth.js';

export interface RetryOptions extends ConnectionFlags {
  json?: boolean;
  verbose?: boolean;
  /** Create a job whose creation may have reached the service again all the same (it may bill twice). */
  resubmit?: boolean;
}

/**
 * `scan2mesh retry <jobId>`: runs a failed or canceled job again and waits for it. The id is the one
 * `scan2mesh status` shows (or its first characters), or the service's job id. A job that failed as
 * 'job-may-exist' is submitted again only with --resubmit; without it the command says so and exits 5.
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
    if (job.state === 'failed' && job.error?.code === 'job-may-exist' && !opts.resubmit)
      throw new CliExit(
        EXIT.mayExist,
        `job ${job.id.slice(0, 8)} may already exist on the service: its creation was sent and no answer came back.\n` +
          `  Check the service for a job created at that time. If there is none, run\n` +
          `  \`scan2mesh retry ${job.id.slice(0, 8)} --resubmit\` to submit it again (the service may bill twice).`,
      );
    const again = queue.manager.retry(job.id, { resubmit: opts.resubmit === true });
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
      .option('--json', 'print one JSON document with the job, its state, outputs and error')
      .option(
        '--resubmit',
        'submit a job whose creation may have reached the service again (check the service first: it may bill twice)',
      ),
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
