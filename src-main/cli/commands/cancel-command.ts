import type { Command } from 'commander';

/** `scan2mesh cancel` as the command line takes it; what it does is in cancel.ts, loaded when it runs. */
export function registerCancel(program: Command): void {
  program
    .command('cancel')
    .description(
      'Stop queued or running jobs for good, also those the app or another command runs (`retry` starts one again)',
    )
    .argument('<jobId...>', 'ids from `scan2mesh status` (or their first characters)')
    .option('--json', 'print one JSON document: { jobs: [{ job, was, state }] }')
    .action(async (jobIds: string[], opts: { json?: boolean }) => {
      const [{ runCancel }, { withCliQueueDeps }] = await Promise.all([
        import('./cancel.js'),
        import('../queue-driver.js'),
      ]);
      process.exitCode = await withCliQueueDeps(false, (deps) => runCancel(jobIds, opts, deps));
    });
}
