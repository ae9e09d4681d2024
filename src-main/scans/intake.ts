import { AppError } from '../../src-shared/errors.js';
import type { IntakeResult, ScanProblem, SkippedFile } from '../../src-shared/scans.js';
import type { ArchiveLimits } from './archive-extract.js';
import { DropArchives } from './intake-archives.js';
import { DROP_OVER_BUDGET, newDropBudget } from './drop-parse-budget.js';
import { classifyMany } from './header-scan.js';
import { walkPaths, type Candidate } from './file-walk.js';
import type { DicomHeader } from './header-fields.js';
import { pixelDataProblems } from './intake-pixel-data.js';
import { compressedDataProblems } from './intake-compression.js';
import { j2kStructureProblems, jpegLsNearProblem, rleHeaderProblems } from './intake-codestreams.js';
import { isUsable } from '../../src-shared/series-usable.js';
import { sortProblems, summarizeSeries } from './series-summary.js';
import { setCopiesAside, sameUidProblem } from './intake-copies.js';
import { concatenationProblem, withoutLocalizers, otherVolumesProblem } from './intake-parts.js';
import {
  damagedBeside,
  damagedFilesBySeries,
  damagedFilesProblem,
  type DamagedFile,
  type DamagedFiles,
} from './intake-damaged.js';
import type { SliceLayout } from './slice-layout.js';
import type { Logger } from '../logging/logger.js';

interface IntakeOptions {
  /** Archives found in the drop are unpacked under here. */
  tempDir: string;
  signal?: AbortSignal;
  limits?: ArchiveLimits;
  /** Archives inside archives are opened this many levels deep. */
  maxArchiveDepth?: number;
  /** Read headers on worker threads (default true); false reads every header on this thread. */
  workers?: boolean;
  /** Where the technical cause of an unreadable file goes (never into the user's messages). */
  logger?: Logger;
  /** What the drop's files read whole may cost (drop-parse-budget.ts); its defaults unless given. */
  readBudget?: { inflatedKib: number; elements: number };
}

/** One series as the service keeps it: its summary plus what later calls need. */
export interface IntakeSeries {
  summary: IntakeResult['series'][number];
  headers: DicomHeader[];
  layout: SliceLayout;
  /**
   * The user's files that hold the series: its slice files, or the archives they were unpacked
   * from. Giving these to intake again finds the same series under the same id.
   */
  inputs: string[];
}

interface IntakeOutcome {
  result: IntakeResult;
  series: IntakeSeries[];
  /** Folders created for unpacked archives; the caller removes them when done with the series. */
  tempDirs: string[];
}

/**
 * Turns whatever was dropped (files, folders, zips, gzipped files, in any mix) into described and
 * checked series. Reads headers only. Never throws for bad input: what cannot be used is listed in
 * `skipped` or `problems`.
 */
export async function intake(paths: string[], opts: IntakeOptions): Promise<IntakeOutcome> {
  const walked = await walkPaths(paths, opts.signal ? { signal: opts.signal } : {});
  if (opts.signal?.aborted) throw new AppError('canceled', 'Looking at the scan was canceled.');
  const skipped: SkippedFile[] = [...walked.skipped];
  const problems: ScanProblem[] = [...walked.problems];
  const images: DicomHeader[] = [];
  const damaged: DamagedFile[] = [];
  const displayOf = new Map<string, string>();
  const originOf = new Map<string, string>();
  const archives = new DropArchives(opts.tempDir, {
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  const maxDepth = opts.maxArchiveDepth ?? 2;
  // One budget for what the drop's files read whole cost, in every round (archives' files too).
  const budget = newDropBudget(opts.readBudget);
  const unread: Unread = { count: 0 };

  let round: Candidate[] = walked.files;
  while (round.length > 0) {
    const next: Candidate[] = [];
    // Header reads only, on worker threads: the main thread stays free for other calls.
    const classified = await classifyMany(round, {
      signal: opts.signal,
      workers: opts.workers ?? true,
      budget,
    });
    for (let i = 0; i < round.length; i++) {
      const c = round[i]!;
      const r = classified[i]!;
      if (r.kind === 'image') {
        images.push(r.header);
        // Files the user dropped are shown and kept by their own paths: only unpacked ones are noted.
        if (c.display !== c.path) displayOf.set(c.path, c.display);
        if (c.origin !== c.path) originOf.set(c.path, c.origin);
      } else if (r.kind === 'skip') {
        skipped.push({ path: c.display, reason: r.reason });
      } else if (r.kind === 'problem' && r.problem.code === DROP_OVER_BUDGET) {
        // Said once for the drop (leftUnread), not file by file.
        unread.count++;
        unread.why ??= r.detail;
      } else if (r.kind === 'problem') {
        problems.push({ ...r.problem, file: c.display });
        // Also said by its series, when the file still names it (damagedFilesBySeries).
        if (r.problem.code === 'corrupt-file')
          damaged.push({ path: c.path, display: c.display, message: r.problem.message });
        // The cause only (parser or system text), no file name: names may identify the patient.
        if (r.detail) opts.logger?.warn('file left out', { code: r.problem.code, detail: r.detail });
      } else {
        if (c.depth >= maxDepth) {
          skipped.push({ path: c.display, reason: 'an archive inside archives nested too deeply' });
          continue;
        }
        const unpacked = await archives.unpack(c, r.archive);
        next.push(...unpacked.next);
        problems.push(...unpacked.problems);
        skipped.push(...unpacked.skipped);
        damaged.push(...unpacked.damaged);
      }
    }
    round = next;
  }

  const series = await groupAndSummarize(
    images,
    (p) => displayOf.get(p) ?? p,
    (p) => originOf.get(p) ?? p,
    await damagedFilesBySeries(damaged, opts.signal, budget),
  );
  leftUnread(unread, problems, series);
  const usable = series.filter((s) => isUsable(s.summary));
  if (usable.length > 1) {
    problems.push({
      severity: 'info',
      code: 'several-series',
      message: `What you dropped holds ${usable.length} usable series. Choose the one to segment.`,
    });
  }
  if (usable.length === 0) {
    problems.push({
      severity: 'error',
      code: 'nothing-usable',
      message:
        series.length > 0
          ? 'No series in what you dropped can be used; each one says why.'
          : 'No DICOM images were found in what you dropped.',
    });
  }
  return {
    result: { series: series.map((s) => s.summary), skipped, problems: sortProblems(problems) },
    series,
    tempDirs: archives.tempDirs,
  };
}

/** The files of a drop left unread because it spent its reading budget, and why. */
interface Unread {
  count: number;
  why?: string | undefined;
}

/**
 * Files left unread because the drop spent its reading budget (drop-parse-budget.ts), said once for
 * the drop; and no series is offered, since any of them may lack slices among those files (a review:
 * one series of a large drop lost 28 slices and was shown with a gap, another vanished).
 */
function leftUnread(unread: Unread, problems: ScanProblem[], series: IntakeSeries[]): void {
  const n = unread.count;
  if (n === 0) return;
  problems.push({
    severity: 'error',
    code: DROP_OVER_BUDGET,
    message: `${n} file${n > 1 ? 's' : ''} of what you dropped ${n > 1 ? 'were' : 'was'} not read: ${unread.why ?? 'the drop is larger than scan2mesh reads at once'}. Drop fewer series at a time.`,
  });
  const notOffered =
    'Not every file of what you dropped was read, and this series may lack slices among those left unread, so it is not offered. Drop fewer series at a time.';
  for (const s of series) {
    s.summary.problems = sortProblems([
      ...s.summary.problems,
      { severity: 'error', code: DROP_OVER_BUDGET, message: notOffered },
    ]);
    s.summary.previewable = false;
    s.summary.fitness = { fit: false, reasons: [notOffered] };
  }
}

/**
 * Groups images by series; each multi-frame file is a volume of its own. Copies of an image (same
 * SOP Instance UID and the same bytes, e.g. a folder dropped together with its zip) are counted
 * once. Damaged files whose series is known are said with that series, those whose series is not
 * with every series beside them.
 */
async function groupAndSummarize(
  images: DicomHeader[],
  display: (path: string) => string,
  origin: (path: string) => string,
  damagedFiles: DamagedFiles,
): Promise<IntakeSeries[]> {
  const groups = new Map<string, DicomHeader[]>();
  // Indexed loops over the images: for...of makes an iterator result per element until the JIT has
  // compiled the loop, and this runs once per drop, over up to thousands of files.
  for (let i = 0; i < images.length; i++) {
    const h = images[i]!;
    // Each multi-frame file is a volume of its own, unless it is a part of a concatenation (one
    // image split across files), whose parts are grouped to be seen, and refused, as one.
    const key = h.concatenation
      ? `${h.seriesUid}#concatenation:${h.concatenation.uid}`
      : h.numberOfFrames > 1
        ? `${h.seriesUid}#${h.sopInstanceUid || h.path}`
        : h.seriesUid || `file:${h.path}`;
    const g = groups.get(key);
    if (g) g.push(h);
    else groups.set(key, [h]);
  }
  // How many multi-frame files (not parts of a concatenation) each series has.
  const volumesOf = new Map<string, number>();
  for (const g of groups.values()) {
    const h = g[0]!;
    if (h.numberOfFrames > 1 && !h.concatenation && h.seriesUid)
      volumesOf.set(h.seriesUid, (volumesOf.get(h.seriesUid) ?? 0) + 1);
  }
  const out: IntakeSeries[] = [];
  for (const [key, headers] of groups) {
    const extra: ScanProblem[] = [];
    const { kept: all, copies, conflicts } = await setCopiesAside(headers);
    const { images: kept, problem: scouts } = withoutLocalizers(all, display);
    if (scouts) extra.push(scouts);
    extra.push(...(await pixelDataProblems(kept, display)));
    extra.push(...(await compressedDataProblems(kept, display)));
    const j2k = await j2kStructureProblems(kept, display);
    if (j2k) extra.push(j2k);
    const near = await jpegLsNearProblem(kept, display);
    if (near) extra.push(near);
    const rle = await rleHeaderProblems(kept, display);
    if (rle) extra.push(rle);
    if (copies > 0) {
      extra.push({
        severity: 'info',
        code: 'duplicate-files',
        message: `${copies} file${copies > 1 ? 's were copies' : ' was a copy'} of another image (the same bytes, or the same image stored in another encoding) and ${copies > 1 ? 'were' : 'was'} counted once.`,
      });
    }
    for (const same of conflicts) extra.push(sameUidProblem(same.map((h) => display(h.path))));
    const first = kept[0];
    const parts = first?.concatenation
      ? concatenationProblem(kept)
      : first && first.numberOfFrames > 1 && first.seriesUid
        ? otherVolumesProblem((volumesOf.get(first.seriesUid) ?? 1) - 1)
        : undefined;
    if (parts) extra.push(parts);
    // Only a series of single-frame files is keyed by its UID alone (see above).
    const damaged = damagedFiles.bySeries.get(key) ?? [];
    const beside = damagedBeside(
      damagedFiles.unattributed,
      kept.map((h) => display(h.path)),
    );
    if (damaged.length + beside.length > 0) extra.push(damagedFilesProblem(damaged, beside));
    const { summary, layout } = summarizeSeries(kept, display, extra);
    out.push({ summary, headers: kept, layout, inputs: [...new Set(kept.map((h) => origin(h.path)))] });
  }
  // Most slices first: the likely scan before scouts and leftovers.
  out.sort(
    (a, b) =>
      b.summary.slices - a.summary.slices ||
      a.summary.seriesDescription.localeCompare(b.summary.seriesDescription),
  );
  return out;
}
