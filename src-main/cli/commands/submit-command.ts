import type { Command } from 'commander';
import { MESH_EXTENSIONS } from '../../../src-shared/job-spec.js';
import { namesLocalEngine, pickConnectionFlags } from '../../connections/connection-flags.js';
import { startJobWorkerEarly } from '../../engine/segmentation/job-worker-start.js';
import { addConnectionOptions } from '../connection-options.js';
import { LOCAL_STRUCTURES } from '../../engine/segmentation/plan.js';
import { checkOutFolder, checkScanPaths } from '../folder-checks.js';
import { deidentifyChoice, parseConcurrency } from '../option-parsers.js';
import { givenNotDropped } from '../cli-wording.js';
import { terminal } from '../terminal-text.js';
import type { SubmitOptions } from './submit.js';

// No default: commander shows a default in the help ("(default: [])"), wrong for a required option.
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** As submit.ts writes by default, with the words of a drop made those of a command line. */
const commandLineIo = {
  out: terminal.out,
  err: (text: string) => terminal.err(givenNotDropped(text)),
  progress: process.stderr,
};

/** `scan2mesh submit` as the command line takes it; what it does is in submit.ts, loaded when it runs. */
export function registerSubmit(program: Command): void {
  addConnectionOptions(
    program
      .command('submit')
      .description(
        'Send scans for segmentation and save the meshes (no connection options: the local engine)',
      )
      .argument('<scan...>', 'DICOM folders, zips of them, or multi-frame .dcm files')
      .requiredOption(
        '--mesh <structures>',
        'one output file: structures joined by commas are merged (repeatable), e.g. --mesh skull --mesh all_teeth',
        collect,
      )
      .option('--format <format>', `mesh format: ${MESH_EXTENSIONS.map((e) => e.slice(1)).join(', ')}`, 'stl')
      .requiredOption(
        '--out <dir>',
        'output folder; meshes go to <dir>/<scan name>/<structures joined by +>.<format>',
      )
      .option(
        '--json',
        "print one JSON document, whatever the exit code: every job (its state, outputs and error) and every scan's fate (sent, refused, left out, not sent) with the reason",
      )
      .option('--deidentify', 'remove patient data before upload (default for remote services)')
      .option('--no-deidentify', 'send the scan as it is (default for the local engine)')
      .option(
        '--accept-burned-in',
        'de-identify (always: it cannot go with --no-deidentify) and send even scans whose images may show patient data in the pixels (burned-in text)',
      )
      .option(
        '--concurrency <n>',
        'uploads and downloads at the same time (default 2 each)',
        parseConcurrency,
      )
      .option('--parallel <n>', 'the same as --concurrency (older name)', parseConcurrency)
      .addHelpText(
        'after',
        `\nThe local engine (the default connection) makes: ${LOCAL_STRUCTURES.join(', ')}.\n` +
          'A remote service (--profile, or --base-url and the rest) may make more, such as mandible,\n' +
          'nerves or single teeth: see the README ("Command line"). A leading ~/ in a path is your home folder.',
      ),
  ).action(async (typed: string[], options: SubmitOptions) => {
    // Checked in words before anything is loaded, read or sent.
    const scans = await checkScanPaths(typed);
    const opts: SubmitOptions = {
      ...options,
      out: await checkOutFolder(options.out),
      ...deidentifyChoice(options),
    };
    // Jobs for the local engine: its job worker gets ready on the other core while this one loads
    // the queue and reads the scans (job-worker-start.ts).
    if (namesLocalEngine(pickConnectionFlags(opts))) startJobWorkerEarly();
    const [{ runSubmit }, { withCliQueueDeps }] = await Promise.all([
      import('./submit.js'),
      import('../queue-driver.js'),
    ]);
    process.exitCode = await withCliQueueDeps(opts.verbose, (deps) =>
      runSubmit(scans, opts, deps, commandLineIo),
    );
  });
}
