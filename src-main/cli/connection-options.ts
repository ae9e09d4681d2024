import type { Command } from 'commander';
import { SECRET_ENV } from '../connections/connection-flags.js';

/** The connection options of every command that takes a connection (connections/connection-flags.ts reads them). */
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
