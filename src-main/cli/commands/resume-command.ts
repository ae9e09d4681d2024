import type { Command } from 'commander';
import { addConnectionOptions } from '../connection-options.js';
import { parseConcurrency } from '../option-parsers.js';
import type { ResumeOptions } from './resume.js';

/** `scan2mesh resume` as the command line takes it; what it does is in resume.ts, loaded when it runs. */
export function registerResume(program: Command): void {
  addConnectionOptions(
    program
      .command('resume')
      .description(
        'Finish the jobs left unfinished (after a crash, a reboot or Ctrl+C); give the connection flags the jobs were submitted with',
      )
      .option(
        '--concurrency <n>',
        'uploads and downloads at the same time (default 2 each)',
        parseConcurrency,
      )
      .option('--json', 'print one JSON document with every job, its state, outputs and error'),
  ).action(async (opts: ResumeOptions) => {
    const [{ runResume }, { withCliQueueDeps }] = await Promise.all([
      import('./resume.js'),
      import('../queue-driver.js'),
    ]);
    process.exitCode = await withCliQueueDeps(opts.verbose, (deps) => runResume(opts, deps));
  });
}
