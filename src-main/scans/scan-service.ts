import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { sep } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import type {
  IntakeResult,
  SeriesSummary,
  SlicePreview,
  SlicePreviewRequest,
} from '../../src-shared/scans.js';
import { silentLogger, type Logger } from '../logging/logger.js';
import { createOwnedTempFolder, type OwnedTempFolder } from '../platform/temp-folders.js';
import { intake, type IntakeSeries } from './intake.js';
import { packageBaseName, packageSeries, type PackageOptions, type PackagedScan } from './package-series.js';
import { histogramWindow, renderPlane, type WindowLevel } from './preview.js';
import { volumeFromHeaders } from './volume-reader.js';
import type { Volume } from './volume.js';

/**
 * The scans side of the app: intake of what the user dropped, previews, and packages for upload.
 * It remembers every series it has described, by id, until forget() or dispose(). Patient data is
 * returned to callers (the user sees it) but never logged.
 *
 * Each intake unpacks archives into a folder of its own: copies of patient data, kept only while a
 * series known here has its files there, or a package or preview is being read from them. A folder
 * nothing was unpacked into goes at once; one whose series were all forgotten, or taken in again
 * (the same drop twice: the newer copy serves), goes then. Before, every drop kept its copy until
 * the app was closed (an audit counted four full copies of one scan after four drops).
 */
export class ScanService {
  private readonly logger: Logger;
  private readonly tempRoot: string;
  private readonly known = new Map<string, IntakeSeries>();
  /** Each intake's folder, with who uses it: the ids of series with files there, and reads under way. */
  private readonly folders = new Map<OwnedTempFolder, Set<string>>();
  private cached?: CachedVolume;
  private loading?: { id: string; promise: Promise<Volume> };

  constructor(opts: { logger?: Logger; tempDir?: string } = {}) {
    this.logger = opts.logger ?? silentLogger;
    this.tempRoot = opts.tempDir ?? tmpdir();
  }

  async intake(paths: string[], opts: { signal?: AbortSignal } = {}): Promise<IntakeResult> {
    const started = performance.now();
    // Named for this process: removed on a kill signal, and swept by a later process if this one dies.
    const workDir = await createOwnedTempFolder('scan2mesh-scans-', this.tempRoot);
    // Held while it is being filled: a forget() or another intake ending meanwhile must not remove it.
    const filling = `intake:${randomUUID()}`;
    const users = new Set<string>([filling]);
    this.folders.set(workDir, users);
    let outcome;
    try {
      outcome = await intake(paths, {
        tempDir: workDir.path,
        logger: this.logger,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
    } finally {
      // Its series are the ones known now: earlier copies of them are no longer used.
      for (const s of outcome?.series ?? []) {
        const id = s.summary.id;
        this.known.set(id, s);
        for (const other of this.folders.values()) other.delete(id);
        if (this.cached?.id === id) this.cached = undefined;
        if (s.headers.some((h) => isInside(h.path, workDir.path))) users.add(id);
      }
      users.delete(filling);
      await this.releaseUnused();
    }
    const r = outcome.result;
    // Counts and codes only: names, ids and paths may identify the patient.
    this.logger.info('intake done', {
      inputs: paths.length,
      series: r.series.length,
      slices: r.series.map((s) => s.slices),
      skipped: r.skipped.length,
      problems: r.problems.map((p) => p.code),
      ms: Math.round(performance.now() - started),
    });
    return r;
  }

  /** Every series known here, in the order they were taken in (a series taken in again keeps its place). */
  list(): SeriesSummary[] {
    return [...this.known.values()].map((s) => s.summary);
  }

  series(id: string): SeriesSummary | undefined {
    return this.known.get(id)?.summary;
  }

  /**
   * The files on the user's disk to give intake() again (after a restart) to find this series
   * under the same id: the slice files, or the dropped archive(s) they came from.
   */
  inputsOf(id: string): string[] {
    return [...(this.known.get(id)?.inputs ?? [])];
  }

  /** Whether a series known here was read from files under `dir` (its card may submit it again). */
  offers(dir: string): boolean {
    for (const s of this.known.values()) if (s.inputs.some((p) => isInside(p, dir))) return true;
    return false;
  }

  /**
   * The series' files in slice order (a multi-frame series is one file). For a series found in a
   * dropped archive these are unpacked copies that live until dispose(); use inputsOf() to find
   * the series again later.
   */
  filesOf(id: string): string[] {
    const s = this.known.get(id);
    if (!s) return [];
    const seen = new Set<string>();
    for (const f of s.layout.frames) seen.add(f.header.path);
    return [...seen];
  }

  async preview(req: SlicePreviewRequest): Promise<SlicePreview> {
    const s = this.require(req.seriesId);
    if (!s.summary.previewable) {
      const why =
        s.summary.problems.find((p) => p.severity === 'error')?.message ??
        'its images cannot be decoded here.';
      throw new AppError('bad-input', `No preview of this series: ${why}`);
    }
    const cached = await this.volumeOf(s);
    const { volume } = cached;
    let wl: WindowLevel;
    if (req.window !== undefined && req.level !== undefined) {
      wl = { window: req.window, level: req.level };
    } else {
      cached.histogram ??= histogramWindow(volume);
      const base = cached.fileWindow ?? cached.histogram;
      wl = { window: req.window ?? base.window, level: req.level ?? base.level };
    }
    return renderPlane(volume, s.summary.id, req.plane, req.index, wl);
  }

  async packageForUpload(id: string, opts: PackageOptions): Promise<PackagedScan> {
    const s = this.require(id);
    const error = s.summary.problems.find((p) => p.severity === 'error');
    if (error) {
      throw new AppError('bad-input', `This series cannot be sent: ${error.message}`, {
        action: 'Choose another series, or export the scan again.',
      });
    }
    // Each file with which file intake read there: one changed since is refused (scan-file-open.ts).
    const byPath = new Map(s.headers.map((h) => [h.path, h]));
    const files = this.filesOf(id).map((path) => {
      const h = byPath.get(path);
      return { path, size: h?.fileSize ?? 0, ...(h ? { id: h.fileId } : {}) };
    });
    const started = performance.now();
    const result: PackagedScan = await this.reading(s, () =>
      packageSeries(files, s.summary.multiFrame, packageBaseName(id, opts.deidentify), opts),
    );
    this.logger.info('packaged', {
      files: files.length,
      deidentified: opts.deidentify,
      extension: result.extension,
      bytes: result.bytes,
      ms: Math.round(performance.now() - started),
    });
    return result;
  }

  /**
   * Forgets these series (the user removed them from the list): they are no longer previewed or
   * packaged here (a job finds its scan again from its source files), and the unpacked copies that
   * served only them are removed.
   */
  async forget(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      this.known.delete(id);
      for (const users of this.folders.values()) users.delete(id);
      if (this.cached?.id === id) this.cached = undefined;
    }
    await this.releaseUnused();
  }

  /** Forgets all series and removes the folders where dropped archives were unpacked. */
  async dispose(): Promise<void> {
    this.known.clear();
    this.cached = undefined;
    this.loading = undefined;
    const dirs = [...this.folders.keys()];
    this.folders.clear();
    await Promise.all(dirs.map((d) => d.remove()));
  }

  /** Runs `read` on a series' files with their folder kept until it ends, whatever is forgotten meanwhile. */
  private async reading<T>(s: IntakeSeries, read: () => Promise<T>): Promise<T> {
    const lease = `reading:${randomUUID()}`;
    const held = [...this.folders].filter(([f]) => s.headers.some((h) => isInside(h.path, f.path)));
    for (const [, users] of held) users.add(lease);
    try {
      return await read();
    } finally {
      for (const [, users] of held) users.delete(lease);
      await this.releaseUnused();
    }
  }

  /** Removes the folders no known series and no read under way uses. */
  private async releaseUnused(): Promise<void> {
    const unused = [...this.folders].filter(([, users]) => users.size === 0).map(([f]) => f);
    for (const f of unused) this.folders.delete(f);
    await Promise.all(unused.map((f) => f.remove()));
  }

  private require(id: string): IntakeSeries {
    const s = this.known.get(id);
    if (!s) {
      throw new AppError('not-found', 'That scan is no longer open.', {
        action: 'Drop the scan onto the window again.',
      });
    }
    return s;
  }

  /** The volume of one series, kept for the last series previewed; concurrent calls share one read. */
  private async volumeOf(s: IntakeSeries): Promise<CachedVolume> {
    const id = s.summary.id;
    if (this.cached?.id === id) return this.cached;
    if (this.loading?.id !== id)
      this.loading = { id, promise: this.reading(s, () => volumeFromHeaders(s.headers)) };
    const { promise } = this.loading;
    let volume: Volume;
    try {
      volume = await promise;
    } finally {
      if (this.loading?.promise === promise) this.loading = undefined;
    }
    if (this.cached?.id !== id) {
      const first = s.headers[0]!;
      this.cached = { id, volume };
      if (first.windowWidth !== undefined && first.windowCenter !== undefined) {
        this.cached.fileWindow = { window: first.windowWidth, level: first.windowCenter };
      }
    }
    return this.cached;
  }
}

interface CachedVolume {
  id: string;
  volume: Volume;
  fileWindow?: WindowLevel;
  histogram?: WindowLevel;
}

function isInside(path: string, folder: string): boolean {
  return path.startsWith(folder + sep);
}
