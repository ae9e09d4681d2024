import { tmpdir } from 'node:os';
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
 * It remembers every series it has described, by id, until dispose(). Patient data is returned to
 * callers (the user sees it) but never logged.
 */
export class ScanService {
  private readonly logger: Logger;
  private readonly tempRoot: string;
  private readonly known = new Map<string, IntakeSeries>();
  private readonly tempDirs: OwnedTempFolder[] = [];
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
    this.tempDirs.push(workDir);
    const outcome = await intake(paths, {
      tempDir: workDir.path,
      logger: this.logger,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    for (const s of outcome.series) this.known.set(s.summary.id, s);
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
    const result: PackagedScan = await packageSeries(
      files,
      s.summary.multiFrame,
      packageBaseName(id, opts.deidentify),
      opts,
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

  /** Forgets all series and removes the folders where dropped archives were unpacked. */
  async dispose(): Promise<void> {
    this.known.clear();
    this.cached = undefined;
    this.loading = undefined;
    const dirs = this.tempDirs.splice(0);
    await Promise.all(dirs.map((d) => d.remove()));
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
    if (this.loading?.id !== id) this.loading = { id, promise: volumeFromHeaders(s.headers) };
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
