import type { Command } from 'commander';
import { MESH_EXTENSIONS } from '../../../src-shared/job-spec.js';
import { namesLocalEngine, pickConnectionFlags } from '../../connections/connection-flags.js';
import { startJobWorkerEarly } from '../../engine/segmentation/job-worker-start.js';
import { addConnectionOptions } from '../connection-options.js';
import { parseConcurrency } from '../option-parsers.js';
import type { SubmitOptions } from './submit.js';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

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
        'one output file: structures joined by commas are merged (repeatable)',
        collect,
        [],
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
        'de-identify and send even scans whose images may show patient data in the pixels (burned-in text)',
      )
      .option(
        '--concurrency <n>',
        'uploads and downloads at the same time (default 2 each)',
        parseConcurrency,
      )
      .option('--parallel <n>', 'the same as --concurrency (older name)', parseConcurrency),
  ).action(async (scans: string[], opts: SubmitOptions) => {
    // Jobs for the local engine: its job worker gets ready on the other core while this one loads
    // the queue and reads the scans (job-worker-start.ts).
    if (namesLocalEngine(pickConnectionFlags(opts))) startJobWorkerEarly();
    const [{ runSubmit }, { withCliQueueDeps }] = await Promise.all([
      import('./submit.js'),
      import('../queue-driver.js'),
    ]);
    process.exitCode = await withCliQueueDeps(opts.verbose, (deps) => runSubmit(scans, opts, deps));
  });
}
