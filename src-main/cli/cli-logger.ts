import { createLogger, type Logger } from '../logging/logger.js';

/** The command line logs nothing unless --verbose, which logs everything to stderr (secrets redacted). */
export function cliLogger(verbose: boolean | undefined): Logger {
  return createLogger({ stderr: !!verbose, level: verbose ? 'debug' : 'warn' }, 'cli');
}
