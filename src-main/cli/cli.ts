import { Command, CommanderError } from 'commander';
import { COMMANDS } from './commands/index.js';
import { CliExit, EXIT } from './exit-codes.js';
import { isAppError } from '../../src-shared/errors.js';

async function main(argv: string[]): Promise<number> {
  const program = new Command()
    .name('scan2mesh')
    .description('Dental CBCT scans in, meshes out: the scan2mesh command line.')
    .showHelpAfterError()
    .exitOverride();
  for (const register of COMMANDS) register(program);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end here too, with code 0.
      return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (e instanceof CliExit) {
      if (e.message) process.stderr.write(`scan2mesh: ${e.message}\n`);
      return e.code;
    }
    if (isAppError(e)) {
      process.stderr.write(`scan2mesh: ${e.message}${e.action ? `\n  ${e.action}` : ''}\n`);
      return e.code === 'auth-failed'
        ? EXIT.authFailed
        : e.code === 'bad-input'
          ? EXIT.usage
          : EXIT.jobFailed;
    }
    process.stderr.write(`scan2mesh: unexpected error: ${e instanceof Error ? e.message : String(e)}\n`);
    return EXIT.jobFailed;
  }
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  () => {
    process.exitCode = EXIT.jobFailed;
  },
);
