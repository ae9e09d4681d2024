import { Command, CommanderError } from 'commander';
import { registerCommands } from './commands/catalog.js';
import { CliExit, EXIT, exitCodeOfError } from './exit-codes.js';
import { isAppError } from '../../src-shared/errors.js';
import { oneLine, terminal } from './terminal-text.js';

/**
 * Runs one command line (`argv` as Node gives it: runtime, script, arguments) and resolves to its exit code.
 * Shared by the `scan2mesh` bin and the desktop app's binary, which runs it when given --scan2mesh-cli.
 */
export async function runCli(argv: string[]): Promise<number> {
  const program = new Command()
    .name('scan2mesh')
    .description('Dental CBCT scans in, meshes out: the scan2mesh command line.')
    .showHelpAfterError()
    .exitOverride();
  // Only the command that runs is loaded (catalog.ts): the help needs none of them.
  await registerCommands(program, argv);
  // Before any command runs (not for a help): what a killed scan2mesh left unpacked goes first, whether
  // or not this command unpacks anything (README: removed by the next scan2mesh process).
  program.hook('preAction', async (_program, command) => {
    const [{ sweepTempFoldersOf }, { dataDir }, { checkDataFolder }] = await Promise.all([
      import('../platform/temp-folders.js'),
      import('../platform/paths.js'),
      import('../platform/folder-problem.js'),
    ]);
    // Every command but inspect keeps something in the data folder: one that cannot be used is said in
    // words before anything starts (web mode said it was running, then its page showed "Internal error").
    if (command.name() !== 'inspect') await checkDataFolder(dataDir());
    await sweepTempFoldersOf(dataDir());
  });
  try {
    // argv is always shaped as Node's (runtime, script, arguments), also inside the app's Electron binary.
    await program.parseAsync(argv, { from: 'node' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end here too, with code 0.
      return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (e instanceof CliExit) {
      if (e.message) terminal.err(`scan2mesh: ${oneLine(e.message)}\n`);
      return e.code;
    }
    if (isAppError(e)) {
      terminal.err(`scan2mesh: ${oneLine(e.message)}${e.action ? `\n  ${oneLine(e.action)}` : ''}\n`);
      return exitCodeOfError(e);
    }
    terminal.err(`scan2mesh: unexpected error: ${oneLine(e instanceof Error ? e.message : String(e))}\n`);
    return EXIT.jobFailed;
  }
}
