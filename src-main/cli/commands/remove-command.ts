import type { Command } from 'commander';

/** `scan2mesh remove` as the command line takes it; what it does is in remove.ts, loaded when it runs. */
export function registerRemove(program: Command): void {
  program
    .command('remove')
    .description(
      'Remove a job that is not running from the queue, with its packed scan and partial downloads (saved meshes stay)',
    )
    .argument('<jobId>', 'the id from `scan2mesh status` (or its first characters), or the service job id')
    .option('--json', 'print one JSON document: { job, removed: [{ kind, path, bytes, jobId }] }')
    .action(async (jobId: string, opts: { json?: boolean }) => {
      const [{ runRemove }, { withCliQueueDeps }] = await Promise.all([
        import('./remove.js'),
        import('../queue-driver.js'),
      ]);
      process.exitCode = await withCliQueueDeps(false, (deps) => runRemove(jobId, opts, deps));
    });
}
