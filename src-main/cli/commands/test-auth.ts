import type { Command } from 'commander';
import { startDefaultEngine } from '../../engine/default-engine.js';
import { createLogger, type Logger } from '../../logging/logger.js';
import { dataDir } from '../../platform/paths.js';
import { createKeytarSecretStore } from '../../secrets/secret-store.js';
import {
  openConnection,
  SECRET_ENV,
  type ConnectionDeps,
  type ConnectionFlags,
} from '../../service/connection.js';
import { ProfileStore } from '../../settings/profile-store.js';
import { EXIT } from '../exit-codes.js';

/** The connection options shared by submit and test-auth. */
export function addConnectionOptions(cmd: Command): Command {
  return cmd
    .option('--profile <name>', 'a saved connection (name or id); its secret comes from the keychain')
    .option(
      '--base-url <url>',
      'service address with the version segment, e.g. https://eu.virtualpatientengine.com/24.06',
    )
    .option('--auth-url <url>', 'identity provider address; the token endpoint is <url>/oauth/token')
    .option('--audience <a>', 'audience of the service, given by its operator')
    .option(
      '--client-id <id>',
      `client id, given by the operator (the secret: environment variable ${SECRET_ENV})`,
    )
    .option('--verbose', 'log what happens to stderr (tokens, secrets and signatures are redacted)');
}

export function connectionFlags(opts: ConnectionFlags): ConnectionFlags {
  const flags: ConnectionFlags = {};
  for (const key of ['profile', 'baseUrl', 'authUrl', 'audience', 'clientId'] as const) {
    if (opts[key] !== undefined) flags[key] = opts[key];
  }
  return flags;
}

export function cliLogger(verbose: boolean | undefined): Logger {
  return createLogger({ stderr: !!verbose, level: verbose ? 'debug' : 'warn' }, 'cli');
}

/** What the command line connects with: the real engine, profile store and keychain. */
export function cliConnectionDeps(logger: Logger): ConnectionDeps {
  return {
    env: process.env,
    logger,
    startEngine: () => startDefaultEngine({ logger }),
    profiles: () => new ProfileStore(dataDir(), logger),
    secrets: () => createKeytarSecretStore(),
  };
}

/** Signs in and calls /testAuth; exit 0 with the service's message, 3 when authentication fails. */
export async function runTestAuth(
  flags: ConnectionFlags,
  deps: ConnectionDeps,
  write: (text: string) => void = (t) => process.stdout.write(t),
): Promise<number> {
  const conn = await openConnection(flags, deps);
  try {
    const message = await conn.client.testAuth();
    write(`Connected to ${conn.label}: ${message}\n`);
    return EXIT.ok;
  } finally {
    await conn.close();
  }
}

export function registerTestAuth(program: Command): void {
  addConnectionOptions(
    program
      .command('test-auth')
      .description(
        'Sign in to a connection and call its /testAuth (no connection options: the local engine)',
      ),
  ).action(async (opts: ConnectionFlags & { verbose?: boolean }) => {
    const logger = cliLogger(opts.verbose);
    process.exitCode = await runTestAuth(connectionFlags(opts), cliConnectionDeps(logger));
  });
}
