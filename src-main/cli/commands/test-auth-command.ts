import type { Command } from 'commander';
import type { ConnectionFlags } from '../../connections/connection-flags.js';
import { addConnectionOptions } from '../connection-options.js';

/** `scan2mesh test-auth` as the command line takes it; what it does is in test-auth.ts, loaded when it runs. */
export function registerTestAuth(program: Command): void {
  addConnectionOptions(
    program
      .command('test-auth')
      .description(
        'Sign in to a connection and call its /testAuth (no connection options: the local engine)',
      ),
  ).action(async (opts: ConnectionFlags & { verbose?: boolean }) => {
    const [{ runTestAuth, testAuthDeps }, { pickConnectionFlags }, { cliLogger }] = await Promise.all([
      import('./test-auth.js'),
      import('../../connections/connection-flags.js'),
      import('../cli-logger.js'),
    ]);
    process.exitCode = await runTestAuth(pickConnectionFlags(opts), testAuthDeps(cliLogger(opts.verbose)));
  });
}
