import { mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import {
  MESH_EXTENSIONS,
  meshFileName,
  type KnownMeshExtension,
  type MeshExtension,
} from '../../../src-shared/job-spec.js';
import { parseStructureList, STRUCTURE_NAME_PATTERN } from '../../../src-shared/structures.js';
import type { StructureVerdict } from '../../../src-shared/structure-check.js';
import { checkMeshes, connectionCapabilities, scanRefusalFor } from '../../app/structure-check.js';
import { pickConnectionFlags, type ConnectionFlags } from '../../connections/connection-flags.js';
import { createSegmentationProcessor } from '../../engine/segmentation/index.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../platform/private-files.js';
import { CliExit, EXIT, exitCodeOf, interruptedExit } from '../exit-codes.js';
import { SubmitFates } from './submit-fates.js';
import { findSeries } from './submit-series.js';
import { printReports, toReport, type JobReport } from '../job-report.js';
import type { ProgressTarget } from '../progress-view.js';
import { openCliQueue, waitWithProgress, type CliQueueDeps } from '../queue-driver.js';
import { oneLine, terminal } from '../terminal-text.js';

export interface SubmitOptions extends ConnectionFlags {
  /** One entry per --mesh: structures joined by commas, merged into one file. */
  mesh: string[];
  format: string;
  out: string;
  json?: boolean;
  /** Absent: de-identify for remote services, not for the local engine. */
  deidentify?: boolean;
  /** Send de-identified even when the images may show patient data in their pixels. */
  acceptBurnedIn?: boolean;
  parallel?: number;
  /** Uploads and downloads at the same time (default 2 each); --parallel is its older name. */
  concurrency?: number;
  verbose?: boolean;
}

interface SubmitIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Where the jobs' progress goes: one line per job redrawn on a terminal, plain lines otherwise. */
  progress: ProgressTarget;
}

const defaultIo: SubmitIo = {
  out: terminal.out,
  err: terminal.err,
  progress: process.stderr,
};

/**
 * `scan2mesh submit`: each usable series of each scan becomes one job of the queue (the one the app
 * shares); meshes are saved as `<out>/<scan name>/<structures joined by +><ext>`. Exit 0 when every job
 * is done, 1 when one failed (or Ctrl+C stopped the wait: `scan2mesh resume` finishes the jobs), 2 for
 * bad usage or unreadable input, 3 when authentication failed.
 */
export async function runSubmit(
  scans: string[],
  opts: SubmitOptions,
  deps: CliQueueDeps,
  io: SubmitIo = defaultIo,
): Promise<number> {
  const fates = new SubmitFates(scans);
  try {
    return await submitScans(scans, opts, deps, io, fates);
  } catch (e) {
    fates.failed(e);
    throw e;
  } finally {
    // One document whatever the exit code (submit-fates.ts says why); the reasons also go to stderr.
    if (opts.json) io.out(`${JSON.stringify(fates.document(), null, 2)}\n`);
  }
}

async function submitScans(
  scans: string[],
  opts: SubmitOptions,
  deps: CliQueueDeps,
  io: SubmitIo,
  fates: SubmitFates,
): Promise<number> {
  const meshes = parseMeshes(opts.mesh);
  const extension = parseFormat(opts.format);
  const concurrency = opts.concurrency ?? opts.parallel ?? 2;
  const outRoot = resolve(opts.out);
  const queue = await openCliQueue(pickConnectionFlags(opts), deps, {
    uploads: concurrency,
    downloads: concurrency,
  });
  fates.connection = queue.label;
  try {
    // What the connection cannot make is refused before the scans are read, packed or sent.
    const caps = connectionCapabilities(queue.kind, createSegmentationProcessor());
    const verdict = checkMeshes(
      meshes.map((structures) => ({ structures })),
      caps,
      queue.label,
    );
    if (verdict.refused.length > 0) {
      printRefusal(queue.label, verdict, io);
      fates.refused = verdict.refused;
      fates.accepted = verdict.accepted;
      return EXIT.usage;
    }
    const deidentify = opts.deidentify ?? queue.kind === 'remote';
    const units = await findSeries(scans, deps.scans, io, deidentify, fates);
    if (units.length === 0) return EXIT.usage;
    // What the engine cannot make of a series' voxel size is said now, not after packing it.
    const coarse = units.flatMap((u) => {
      const why = scanRefusalFor(
        meshes.map((structures) => ({ structures })),
        caps,
        u.series,
      );
      if (why) fates.refuseSeries(u.series.id, why);
      return why ? [{ name: u.scan, reason: why }] : [];
    });
    if (coarse.length > 0) {
      fates.refused = coarse;
      io.err(
        `${coarse.map((c) => `scan2mesh: ${oneLine(c.name)}: ${oneLine(c.reason)}`).join('\n')}\nNothing was submitted.\n`,
      );
      return EXIT.usage;
    }
    await prepareOutDir(outRoot);

    io.err(
      `Submitting ${units.length} job${units.length > 1 ? 's' : ''} to ${queue.label}` +
        `${deidentify ? ', de-identified' : ''}.\n`,
    );
    const submitted = await queue.manager.submit(
      {
        seriesIds: units.map((u) => u.series.id),
        // parseFormat admits only the four known extensions.
        meshes: meshes.map((structures) => ({ structures, extension: extension as KnownMeshExtension })),
        deidentify,
        ...(opts.acceptBurnedIn ? { acceptBurnedIn: true } : {}),
        outputDir: outRoot,
        profileId: queue.profileId,
      },
      {
        namingTemplate: '{scan}/{structures}{ext}',
        scanNames: Object.fromEntries(units.map((u) => [u.series.id, u.dirName])),
      },
    );
    fates.submitted();
    const { views, interrupted, mayExist } = await waitWithProgress(
      queue,
      submitted.map((v) => v.id),
      io.progress,
    );
    // Views come back in the order submitted, one per unit.
    const reports: JobReport[] = views.map((v, i) => ({
      ...toReport(v, mayExist.includes(v.id)),
      scan: units[i]?.scan ?? v.scanName,
    }));
    for (const v of views)
      for (const o of v.outputs) {
        const wanted = meshFileName(o.structures, o.extension);
        if (basename(o.path) !== wanted)
          io.err(
            `${oneLine(v.scanName)}: note: ${wanted} existed already and was kept; saved as ${oneLine(basename(o.path))}\n`,
          );
      }
    fates.jobs = reports;
    if (!opts.json) printReports(queue.label, reports, false, io.out);
    return interruptedExit(interrupted, mayExist) ?? exitCodeOf(views);
  } finally {
    await queue.close();
  }
}

/** Every name the connection cannot make with its reason, and the names it can; nothing was sent. */
function printRefusal(connection: string, verdict: StructureVerdict, io: SubmitIo): void {
  const lines = [`scan2mesh: ${connection} cannot make:`];
  for (const r of verdict.refused) lines.push(`  ${r.name}: ${r.reason}`);
  lines.push(
    verdict.accepted.length > 0
      ? `It can make: ${verdict.accepted.join(', ')}.`
      : `It can make none of the structures asked for.`,
  );
  lines.push(
    'Nothing was submitted. Leave those structures out of --mesh, or choose a remote service that makes them (--profile).',
  );
  io.err(`${lines.join('\n')}\n`);
}

/** Each --mesh value is one output file: "left_nerve,right_nerve" merges both. */
function parseMeshes(values: string[]): string[][] {
  if (values.length === 0) throw new CliExit(EXIT.usage, 'give at least one --mesh, e.g. --mesh skull');
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const value of values) {
    const structures = parseStructureList(value);
    if (structures.length === 0) throw new CliExit(EXIT.usage, `--mesh "${value}" names no structure`);
    const bad = structures.find((s) => !STRUCTURE_NAME_PATTERN.test(s));
    if (bad)
      throw new CliExit(
        EXIT.usage,
        `"${bad}" is not a structure name (lower-case letters, digits, _ and -; e.g. skull, all_teeth, soft_tissue, airway)`,
      );
    const key = [...structures].sort().join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(structures);
  }
  return out;
}

function parseFormat(format: string): MeshExtension {
  const ext = `.${format.replace(/^\./, '').toLowerCase()}`;
  if (!(MESH_EXTENSIONS as readonly string[]).includes(ext))
    throw new CliExit(
      EXIT.usage,
      `--format must be one of ${MESH_EXTENSIONS.map((e) => e.slice(1)).join(', ')}, not "${format}"`,
    );
  return ext as MeshExtension;
}

/**
 * Makes the output folder (private when made here: it will hold patients' meshes) and writes a file
 * in it, before anything is sent: a read-only or foreign folder otherwise showed only after the
 * whole job had run, and its meshes were lost.
 */
async function prepareOutDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    if (!(await stat(dir)).isDirectory()) throw new Error('not a folder');
    const probe = join(dir, `.scan2mesh-write-test-${process.pid}`);
    await writeFile(probe, '', { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    await unlink(probe);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'EROFS'
        ? 'its disk is read-only'
        : code === 'EACCES' || code === 'EPERM'
          ? 'you may not write in it'
          : code === 'ENOSPC'
            ? 'its disk is full'
            : (e as Error).message;
    throw new CliExit(EXIT.usage, `--out ${dir} cannot be used as the output folder (${why})`);
  }
}
