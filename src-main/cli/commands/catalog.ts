import { Help, type Command } from 'commander';

/**
 * The commands, as `scan2mesh --help` lists them. A command's definition (<name>-command.ts: its options
 * and help) is loaded only when the command line names it, and what it does (<name>.ts) only when it
 * runs: that pulls in most of the app (the job queue and SQLite, the contract's zod schemas, codecs,
 * meshoptimizer), and loading all of it to print a help cost more than half a CPU-second. The bundler
 * turns these dynamic imports into modules initialised on first use. catalog.test.ts checks that the
 * list matches the real commands, term for term.
 */
interface CatalogEntry {
  name: string;
  /** What the help's command list shows: name, [options], arguments. */
  term: string;
  summary: string;
  load: () => Promise<(program: Command) => void>;
}

export const COMMAND_CATALOG: CatalogEntry[] = [
  {
    name: 'web',
    term: 'web [options]',
    summary: 'Serve the app on 127.0.0.1 for a browser (no Electron needed)',
    load: async () => (await import('./web-command.js')).registerWeb,
  },
  {
    name: 'inspect',
    term: 'inspect [options] <path...>',
    summary: 'Look at DICOM files, folders and zips: list the series found and what is wrong with them',
    load: async () => (await import('./inspect.js')).registerInspect,
  },
  {
    name: 'submit',
    term: 'submit [options] <scan...>',
    summary: 'Send scans for segmentation and save the meshes (no connection options: the local engine)',
    load: async () => (await import('./submit-command.js')).registerSubmit,
  },
  {
    name: 'test-auth',
    term: 'test-auth [options]',
    summary: 'Sign in to a connection and call its /testAuth (no connection options: the local engine)',
    load: async () => (await import('./test-auth-command.js')).registerTestAuth,
  },
  {
    name: 'engine',
    term: 'engine [options]',
    summary: 'Run the local engine alone on 127.0.0.1, for other clients and scripts',
    load: async () => (await import('./engine-command.js')).registerEngine,
  },
  {
    name: 'status',
    term: 'status [options]',
    summary: 'List the jobs of the queue shared by the app and the command line',
    load: async () => (await import('./status-command.js')).registerStatus,
  },
  {
    name: 'resume',
    term: 'resume [options]',
    summary:
      'Finish the jobs left unfinished (after a crash, a reboot or Ctrl+C); give the connection flags the jobs were submitted with',
    load: async () => (await import('./resume-command.js')).registerResume,
  },
  {
    name: 'retry',
    term: 'retry [options] <jobId>',
    summary: 'Run a failed or canceled job again (give the connection flags it was submitted with)',
    load: async () => (await import('./retry-command.js')).registerRetry,
  },
  {
    name: 'cancel',
    term: 'cancel [options] <jobId...>',
    summary:
      'Stop queued or running jobs for good, also those the app or another command runs (`retry` starts one again)',
    load: async () => (await import('./cancel-command.js')).registerCancel,
  },
  {
    name: 'remove',
    term: 'remove [options] <jobId>',
    summary:
      'Remove a job that is not running from the queue, with its packed scan and partial downloads (saved meshes stay)',
    load: async () => (await import('./remove-command.js')).registerRemove,
  },
  {
    name: 'prune',
    term: 'prune [options]',
    summary:
      'Remove what ended jobs left (packed scans, partial downloads, web-mode drops) and packed scans of jobs that no longer exist',
    load: async () => (await import('./prune-command.js')).registerPrune,
  },
];

/**
 * Adds the commands to `program` for this command line: the one it names (also after `help`) with its
 * real definition, else a light entry per command, enough for the help's list and for commander to
 * say "unknown command" with a suggestion.
 */
export async function registerCommands(program: Command, argv: string[]): Promise<void> {
  const args = argv.slice(2);
  const first = args.findIndex((a) => !a.startsWith('-'));
  const named = first >= 0 && args[first] === 'help' ? args[first + 1] : args[first];
  const entry = COMMAND_CATALOG.find((c) => c.name === named);
  if (entry) {
    (await entry.load())(program);
    return;
  }
  const terms = new Map<Command, string>();
  for (const c of COMMAND_CATALOG) terms.set(program.command(c.name).description(c.summary), c.term);
  const standard = new Help();
  program.configureHelp({
    subcommandTerm: (cmd) => terms.get(cmd) ?? standard.subcommandTerm(cmd),
  });
}
