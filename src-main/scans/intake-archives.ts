import { mkdtemp, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { privateDirUnder } from '../platform/private-files.js';
import { AppError } from '../../src-shared/errors.js';
import type { ScanProblem, SkippedFile } from '../../src-shared/scans.js';
import { ArchiveRefused, extractGzip, extractZip, type ArchiveLimits } from './archive-extract.js';
import { INFLATED_TOO_FAR, withDefaults, type Limits } from './archive-limits.js';
import type { Candidate } from './file-walk.js';
import type { DamagedFile } from './intake-damaged.js';
import type { Logger } from '../logging/logger.js';
import { sizeOf } from '../platform/size-of.js';

/** What unpacking one archive of a drop gave: files to read next, and what to tell the user. */
export interface Unpacked {
  next: Candidate[];
  problems: ScanProblem[];
  skipped: SkippedFile[];
  damaged: DamagedFile[];
}

/**
 * The archives of one drop, unpacked under one temporary folder, within one budget. Each archive's
 * own limits (archive-limits.ts) let a small one unpack to 64 MiB whatever its ratio, so many small
 * ones, or archives inside an archive, multiplied that: 40 gzipped files of 65 KB wrote 2.4 GB and a
 * 17.5 KB zip of zips 2.9 GB, and a few hundred more would have filled the disk (a review). The drop
 * as a whole may unpack to no more than the ratio limit times the archives the user dropped (their
 * own size), or the ratio-free allowance, whichever is more.
 */
export class DropArchives {
  private workDir: string | undefined;
  private count = 0;
  private readonly limits: Limits;
  /** Bytes of the archives the user dropped, and bytes unpacked from every archive so far. */
  private packed = 0;
  private unpacked = 0;
  readonly tempDirs: string[] = [];

  constructor(
    private readonly tempDir: string,
    private readonly opts: { limits?: ArchiveLimits; signal?: AbortSignal; logger?: Logger },
  ) {
    this.limits = withDefaults(opts.limits);
  }

  /** Unpacks archive `c`; a refusal, a damaged archive or a full disk is said, not thrown. */
  async unpack(c: Candidate, kind: 'zip' | 'gzip'): Promise<Unpacked> {
    const out: Unpacked = { next: [], problems: [], skipped: [], damaged: [] };
    if (c.depth === 0)
      this.packed += await stat(c.path).then(
        (s) => s.size,
        () => 0,
      );
    const allowance =
      Math.max(this.limits.ratioFreeBytes, this.limits.maxRatio * this.packed) - this.unpacked;
    const refuse = (message: string): void => {
      out.problems.push({
        severity: 'error',
        code: 'archive-refused',
        message: `The archive ${basename(c.display)} was not opened: ${message}.`,
        file: c.display,
      });
    };
    const overDrop = `the archives of this drop unpack to more than ${this.limits.maxRatio} times their size together, ${INFLATED_TOO_FAR}`;
    if (allowance <= 0) {
      refuse(overDrop);
      return out;
    }
    const { limits } = this;
    // Checked after the archive's own limits, whose refusals say more of it.
    const drop = { bytes: allowance, refusal: overDrop };
    const outDir = join(await this.folder(), `a${this.count++}`);
    try {
      if (kind === 'zip') {
        const entries = await extractZip(c.path, outDir, {
          limits,
          drop,
          ...(this.opts.signal ? { signal: this.opts.signal } : {}),
        });
        for (const e of entries) {
          const display = `${c.display}/${e.entryName}`;
          if (e.link) {
            out.skipped.push({ path: display, reason: 'a link inside the archive, not followed' });
            continue;
          }
          if (e.path) {
            this.unpacked += (await sizeOf(e.path)) ?? 0;
            out.next.push({ path: e.path, display, depth: c.depth + 1, origin: c.origin });
            continue;
          }
          const message = `${basename(e.entryName)} in the archive ${basename(c.display)} is damaged (its packed bytes do not unpack whole) and was left out; the archive's other files were read.`;
          out.problems.push({ severity: 'error', code: 'corrupt-file', message, file: display });
          // Also said by its series, when what was unpacked of it still names one, else by the series
          // beside it in the archive (intake-damaged.ts).
          out.damaged.push({ ...(e.damagedPath ? { path: e.damagedPath } : {}), display, message });
        }
        if (entries.length === 0) out.skipped.push({ path: c.display, reason: 'an empty zip archive' });
      } else {
        const path = join(outDir, basename(c.path).replace(/\.t?gz$/i, '') || 'unpacked');
        await extractGzip(c.path, path, { limits, drop });
        this.unpacked += (await sizeOf(path)) ?? 0;
        out.next.push({ path, display: `${c.display} (unpacked)`, depth: c.depth + 1, origin: c.origin });
      }
    } catch (e) {
      if (this.opts.signal?.aborted) throw new AppError('canceled', 'Looking at the scan was canceled.');
      const code = (e as NodeJS.ErrnoException).code;
      if (!(e instanceof ArchiveRefused))
        this.opts.logger?.warn('archive not unpacked', { detail: code ?? String(e) });
      if (e instanceof ArchiveRefused) refuse(e.message);
      else
        out.problems.push({
          severity: 'error',
          code: 'archive-refused',
          message:
            code === 'ENOSPC'
              ? `The archive ${basename(c.display)} could not be unpacked: the disk is full.`
              : `The archive ${basename(c.display)} could not be unpacked: it is damaged or not a complete archive.`,
          file: c.display,
        });
    }
    return out;
  }

  /** The drop's temporary folder, made when its first archive is unpacked. */
  private async folder(): Promise<string> {
    if (!this.workDir) {
      // Never with its parents: this must not bring back a folder a signal's handler has just removed.
      await privateDirUnder(dirname(this.tempDir), this.tempDir);
      this.workDir = await mkdtemp(join(this.tempDir, 'intake-'));
      this.tempDirs.push(this.workDir);
    }
    return this.workDir;
  }
}
