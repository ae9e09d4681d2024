import type { Command } from 'commander';
import { onPort, parsePort } from '../option-parsers.js';

/** `scan2mesh web` as the command line takes it; web mode (transport/web-mode.ts) is loaded when it runs. */
export function registerWeb(program: Command): void {
  program
    .command('web')
    .description('Serve the app on 127.0.0.1 for a browser (no Electron needed)')
    .option('--port <n>', 'port to listen on (default: a random free port)', parsePort)
    .action(async (opts: { port?: number }) => {
      const { runWebMode } = await import('../../transport/web-mode.js');
      await onPort(opts.port, () => runWebMode(opts));
    });
}
