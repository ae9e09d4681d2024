import type { Command } from 'commander';
import { startWebMode } from '../../transport/web-mode.js';
import { CliExit, EXIT } from '../exit-codes.js';

export function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new CliExit(EXIT.usage, `--port must be 0..65535, not "${value}"`);
  return n;
}

/** Runs web mode until interrupted; shared by `scan2mesh web` and `npm start` without Electron. */
export async function runWebMode(opts: { port?: number }): Promise<void> {
  const web = await startWebMode(opts.port !== undefined ? { port: opts.port } : {});
  process.stdout.write(
    `scan2mesh is running in web mode. Open this address in your browser:\n\n  ${web.server.url}\n\n`,
  );
  process.stdout.write('It works only on this computer and only with this address. Press Ctrl+C to stop.\n');
  await new Promise<void>((done) => {
    const stop = (): void => {
      void web.close().then(done);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

export function registerWeb(program: Command): void {
  program
    .command('web')
    .description('Serve the app on 127.0.0.1 for a browser (no Electron needed)')
    .option('--port <n>', 'port to listen on (default: a random free port)', parsePort)
    .action(async (opts: { port?: number }) => runWebMode(opts));
}
