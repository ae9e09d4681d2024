import type { Command } from 'commander';
import { addConnectionOptions } from '../connection-options.js';
import type { RetryOptions } from './retry.js';

/** `scan2mesh retry` as the command line takes it; what it does is in retry.ts, loaded when it runs. */
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
    const [{ runRetry }, { withCliQueueDeps }] = await Promise.all([
      import('./retry.js'),
      import('../queue-driver.js'),
    ]);
    process.exitCode = await withCliQueueDeps(opts.verbose, (deps) => runRetry(jobId, opts, deps));
  });
}
