import type { Command } from 'commander';
import { onPort, parsePort } from '../option-parsers.js';
import type { EngineOptions } from './engine.js';

/** `scan2mesh engine` as the command line takes it; what it does is in engine.ts, loaded when it runs. */
export function registerEngine(program: Command): void {
  program
    .command('engine')
    .description('Run the local engine alone on 127.0.0.1, for other clients and scripts')
    .option('--port <n>', 'port to listen on (default: a random free port)', parsePort)
    .option('--data-dir <dir>', 'keep jobs in this folder across restarts (default: a temporary folder)')
    .option('--json', 'print the addresses as one JSON line')
    .option('--verbose', 'log requests to stderr (tokens, secrets and signatures are redacted)')
    .action(async (opts: EngineOptions) => {
      const { runEngine } = await import('./engine.js');
      await onPort(opts.port, () => runEngine(opts));
    });
}
