import { pickConnectionFlags, type ConnectionFlags } from '../../connections/connection-flags.js';
import { CliExit, EXIT } from '../exit-codes.js';
import { jobNamed } from './job-named.js';
import { openCliQueue, type CliQueueDeps } from '../queue-driver.js';
import { defaultQueueIo, waitAndReport, type QueueIo } from './resume.js';

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
  const queue = await openCliQueue(pickConnectionFlags(opts), deps);
  try {
    const job = jobNamed(queue.manager, jobId);
    if (job.state === 'failed' && job.error?.code === 'job-may-exist' && !opts.resubmit)
      throw new CliExit(
        EXIT.mayExist,
        // One line: the terminal-safe output shows a newline inside a message as U+FFFD.
        `job ${job.id.slice(0, 8)} may already exist on the service: its creation was sent and not confirmed (the service answered with an error, or did not answer). ` +
          `Check the service for a job created at that time; if there is none, run ` +
          `\`scan2mesh retry ${job.id.slice(0, 8)} --resubmit\` to submit it again (the service may bill twice).`,
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
