import type { Command } from 'commander';
import type { StatusOptions } from './status.js';
import { terminal } from '../terminal-text.js';

/** `scan2mesh status` as the command line takes it; what it does is in status.ts, loaded when it runs. */
export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('List the jobs of the queue shared by the app and the command line')
    .option('--json', 'print one JSON document: { jobs: [...] }')
    .option('--active', 'only jobs that are not finished')
    .action(async (opts: StatusOptions) => {
      const [{ runStatus }, { dataDir }] = await Promise.all([
        import('./status.js'),
        import('../../platform/paths.js'),
      ]);
      process.exitCode = runStatus(opts, { dataDir: dataDir(), out: terminal.out });
    });
}
