import type { Command } from 'commander';

/** `scan2mesh prune` as the command line takes it; what it does is in prune.ts, loaded when it runs. */
export function registerPrune(program: Command): void {
  program
    .command('prune')
    .description(
      'Remove what ended jobs left (packed scans, partial downloads, web-mode drops) and packed scans of jobs that no longer exist',
    )
    .option('--json', 'print one JSON document: { removed: [{ kind, path, bytes, jobId }] }')
    .action(async (opts: { json?: boolean }) => {
      const [{ runPrune }, { withCliQueueDeps }] = await Promise.all([
        import('./prune.js'),
        import('../queue-driver.js'),
      ]);
      process.exitCode = await withCliQueueDeps(false, (deps) => runPrune(opts, deps));
    });
}
