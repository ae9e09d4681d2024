import { mkdir, realpath, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import {
  MESH_EXTENSIONS,
  meshFileName,
  sanitizeFileNamePart,
  type KnownMeshExtension,
  type MeshExtension,
} from '../../../src-shared/job-spec.js';
import type { IntakeResult, SeriesSummary } from '../../../src-shared/scans.js';
import { parseStructureList, STRUCTURE_NAME_PATTERN } from '../../../src-shared/structures.js';
import type { StructureVerdict } from '../../../src-shared/structure-check.js';
import { checkMeshes, connectionCapabilities, scanRefusalFor } from '../../app/structure-check.js';
import { pickConnectionFlags, type ConnectionFlags } from '../../connections/connection-flags.js';
import { createSegmentationProcessor } from '../../engine/segmentation/index.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../platform/private-files.js';
import type { ScanService } from '../../scans/scan-service.js';
import { isUsable, unfitReasons } from '../../../src-shared/series-usable.js';
import { CliExit, EXIT, exitCodeOf, interruptedExit } from '../exit-codes.js';
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

interface Unit {
  scan: string;
  series: SeriesSummary;
  /** Folder under --out for this series' meshes. */
  dirName: string;
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
  const meshes = parseMeshes(opts.mesh);
  const extension = parseFormat(opts.format);
  const concurrency = opts.concurrency ?? opts.parallel ?? 2;
  const outRoot = resolve(opts.out);
  const queue = await openCliQueue(pickConnectionFlags(opts), deps, {
    uploads: concurrency,
    downloads: concurrency,
  });
  try {
    // What the connection cannot make is refused before the scans are read, packed or sent.
    const caps = connectionCapabilities(queue.kind, createSegmentationProcessor());
    const verdict = checkMeshes(
      meshes.map((structures) => ({ structures })),
      caps,
      queue.label,
    );
    if (verdict.refused.length > 0) {
      printRefusal(queue.label, verdict, opts.json, io);
      return EXIT.usage;
    }
    const deidentify = opts.deidentify ?? queue.kind === 'remote';
    const units = await findSeries(scans, deps.scans, io, deidentify);
    if (units.length === 0) return EXIT.usage;
    // What the engine cannot make of a series' voxel size is said now, not after packing it.
    const coarse = units.flatMap((u) => {
      const why = scanRefusalFor(
        meshes.map((structures) => ({ structures })),
        caps,
        u.series,
      );
      return why ? [{ name: u.scan, reason: why }] : [];
    });
    if (coarse.length > 0) {
      if (opts.json)
        io.out(`${JSON.stringify({ connection: queue.label, refused: coarse, jobs: [] }, null, 2)}\n`);
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
    printReports(queue.label, reports, opts.json, io.out);
    return interruptedExit(interrupted, mayExist) ?? exitCodeOf(views);
  } finally {
    await queue.close();
  }
}

/** Every name the connection cannot make with its reason, and the names it can; nothing was sent. */
function printRefusal(
  connection: string,
  verdict: StructureVerdict,
  json: boolean | undefined,
  io: SubmitIo,
): void {
  if (json)
    io.out(
      `${JSON.stringify({ connection, refused: verdict.refused, accepted: verdict.accepted, jobs: [] }, null, 2)}\n`,
    );
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

/** Reads every scan first, so that a typo in the last one fails before anything is sent. */
async function findSeries(
  scans: string[],
  service: ScanService,
  io: SubmitIo,
  deidentify: boolean,
): Promise<Unit[]> {
  const units: Unit[] = [];
  const problems: string[] = [];
  // What is sent with warnings, and what of each scan is not sent: said before anything is.
  const notes: string[] = [];
  // Whether a scan held series, none of which a model can be made of (rather than no DICOM at all).
  let unfitOnly = true;
  const usedNames = new Set<string>();
  // One folder or file named twice (`scan scan/`, or through a link) made two jobs of one scan.
  // Copies in other folders are other scans.
  const named = new Map<string, string>();
  for (const scan of scans) {
    const real = await realpath(scan).catch(() => resolve(scan));
    const before = named.get(real);
    if (before !== undefined) {
      io.err(`${oneLine(scan)}: left out: the same folder or file as ${oneLine(before)}, given again\n`);
      continue;
    }
    named.set(real, scan);
    let result: IntakeResult;
    let series: SeriesSummary[];
    let overall: string[];
    try {
      result = await service.intake([scan]);
      series = result.series;
      overall = result.problems
        .filter((p) => p.severity === 'error')
        .map((p) => oneLine(p.message.replace(/\.$/, '')));
    } catch (e) {
      problems.push(`${oneLine(scan)}: ${oneLine(e instanceof Error ? e.message : String(e))}`);
      unfitOnly = false;
      continue;
    }
    // A series is sent only when its files are sound and a model can honestly be made of it.
    const usable = series.filter(isUsable);
    for (const s of series.filter((x) => !usable.includes(x))) {
      const problem = s.problems.find((p) => p.severity === 'error');
      const error = problem?.message;
      const reasons = unfitReasons(s, error ? [error] : []);
      // The file a problem was found in, as inspect shows it: the one to look at or leave out.
      const where = problem?.file ? ` (${oneLine(problem.file)})` : '';
      const why = [
        ...(error ? [oneLine(error) + where] : []),
        ...(reasons.length > 0
          ? ['no model can be made of it:', ...reasons.map((r) => `  - ${oneLine(r)}`)]
          : []),
      ];
      io.err(`${seriesLabel(scan, s)} left out: ${why.join('\n') || 'not usable'}\n`);
    }
    if (usable.length === 0) {
      if (series.length === 0) unfitOnly = false;
      problems.push(
        `${oneLine(scan)}: no CT series a model can be made of${overall.length ? ` (${overall.join('; ')})` : ''}`,
      );
      continue;
    }
    notes.push(...notesOnSent(scan, usable, result));
    const scanName = scanBaseName(scan);
    usable.forEach((s, k) => {
      let name = usable.length === 1 ? scanName : `${scanName}-${k + 1}${seriesPart(s, deidentify)}`;
      name = sanitizeFileNamePart(name) || `scan-${units.length + 1}`;
      let unique = name;
      for (let n = 2; usedNames.has(unique.toLowerCase()); n++) unique = `${name}-${n}`;
      usedNames.add(unique.toLowerCase());
      units.push({ scan, series: s, dirName: unique });
    });
  }
  if (problems.length > 0) {
    for (const p of problems) io.err(`scan2mesh: ${p}\n`);
    io.err(
      unfitOnly
        ? 'Nothing was submitted: no model can be made of these scans as they are; each reason above says why.\n'
        : 'Nothing was submitted. Give DICOM folders, zips of them or multi-frame .dcm files.\n',
    );
    return [];
  }
  for (const n of notes) io.err(n);
  return units;
}

/** Files left out of a scan that are listed one by one; inspect lists them all. */
const MAX_LISTED_LEFT_OUT = 20;

/**
 * What the user is told of a scan before its usable series are sent: each series' warnings (a gap
 * filled in from neighbouring slices, lossy compression...) and every file of the scan that is not
 * sent (damaged, unreadable or skipped). Nothing is left out unseen.
 */
function notesOnSent(scan: string, sent: SeriesSummary[], result: IntakeResult): string[] {
  const notes: string[] = [];
  for (const s of sent) {
    const warnings = s.problems.filter((p) => p.severity === 'warning');
    if (warnings.length === 0) continue;
    notes.push(
      `${seriesLabel(scan, s)} is sent with ${warnings.length === 1 ? 'this warning' : 'these warnings'}:\n`,
      ...warnings.map((p) => `  warning: ${oneLine(p.message)}\n`),
    );
  }
  const leftOut = [
    ...result.problems
      .filter((p) => p.severity !== 'info')
      .map((p) => `  ${p.severity}: ${oneLine(p.message)}${p.file ? ` (${oneLine(p.file)})` : ''}\n`),
    ...result.skipped.map((f) => `  skipped: ${oneLine(f.path)}: ${oneLine(f.reason)}\n`),
  ];
  if (leftOut.length > 0) {
    notes.push(
      `${oneLine(scan)}: left out of what is sent:\n`,
      ...leftOut.slice(0, MAX_LISTED_LEFT_OUT),
      ...(leftOut.length > MAX_LISTED_LEFT_OUT
        ? [
            `  and ${leftOut.length - MAX_LISTED_LEFT_OUT} more (scan2mesh inspect ${oneLine(scan)} lists them all)\n`,
          ]
        : []),
    );
  }
  return notes;
}

/** 'scan: series "BONE 1MM"', each part on one line whatever the file says (terminal-text.ts). */
function seriesLabel(scan: string, s: SeriesSummary): string {
  return `${oneLine(scan)}: series "${oneLine(s.seriesDescription || s.id)}"`;
}

/**
 * What tells apart the folders of one scan's series, after their place. Sent de-identified, nothing
 * more: the description is free text that can name the patient ("CT HEAD DOE JANE"), and the Series
 * Number any digits (a review found "-series-99887766" in an output path).
 */
function seriesPart(s: SeriesSummary, deidentify: boolean): string {
  if (deidentify) return '';
  return s.seriesDescription ? `-${s.seriesDescription}` : '';
}

/** "…/Patient 7/" -> "Patient 7"; "scan.zip" -> "scan"; "vol.dcm.gz" -> "vol". */
function scanBaseName(path: string): string {
  const base = basename(path.replace(/[\\/]+$/, '')).replace(/(\.dcm|\.zip|\.dicom)?(\.gz)?$/i, '');
  return sanitizeFileNamePart(base) || 'scan';
}
