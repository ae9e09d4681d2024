import { join } from 'node:path';
import { isTerminal } from '../../src-shared/jobs.js';
import type { Logger } from '../logging/logger.js';
import { sweepTempFoldersOf, takeSweptTempFolders } from '../platform/temp-folders.js';
import type { JobManagerOptions } from './job-manager-options.js';
import { engineJobOf, pruneEngineJobs, removeEngineJob } from './engine-leftovers.js';
import {
  keepPrivate,
  pruneLeftovers,
  removePackage,
  removePartialDownloads,
  sweepPackages,
  type Leftover,
} from './job-leftovers.js';
import type { JobRecord } from './job-record.js';
import {
  heldByLiveSession,
  ownDrop,
  releaseDrops,
  removeStagedDrops,
  removeStaleDrops,
  stagedDropOf,
} from './staged-drops.js';
import type { JobStore } from './job-store.js';

/** A staged drop no job was made from is kept this long: it may be on a web page, about to be submitted. */
const START_DROP_AGE_MS = 24 * 3600_000;
const PRUNE_DROP_AGE_MS = 3600_000;

/** Why staged drops are let go: their web mode's session ends, or a scan's card was removed. */
export type DropRelease = 'session ended' | 'scan removed';

/** A job that may package its scan again from its files: queued, running, or failed (a retry). */
const mayPackageAgain = (job: JobRecord): boolean => job.state !== 'done' && job.state !== 'canceled';

/**
 * What the queue leaves on disk besides meshes, and when it goes: packages (copies of patient data),
 * partial downloads, and web mode's staged drops. The rules are in job-leftovers.ts; this decides
 * which jobs they apply to, from the job list and the jobs this process runs.
 */
export class JobFiles {
  /** Removed by the sweep at start, reported by the next prune(). */
  private swept: Leftover[] = [];
  /** ended() calls under way: each reads the job database to its end. */
  private readonly ending = new Set<Promise<void>>();

  constructor(
    private readonly dataDir: string,
    private readonly store: JobStore,
    private readonly isRunning: (jobId: string) => boolean,
    private readonly logger: Logger,
    /**
     * The app's local engine, when it runs in this process (never started for this), and the scans
     * its cards show (a drop one of them was read from stays for the page).
     */
    private readonly opts: Partial<Pick<JobManagerOptions, 'runningLocalEngine' | 'scans'>> = {},
  ) {}

  get packagesDir(): string {
    return join(this.dataDir, 'packages');
  }

  private get stagingDir(): string {
    // Web mode's copies of dropped scans (transport/web-mode.ts puts them here).
    return join(this.dataDir, 'staging');
  }

  /**
   * At start: packages of jobs that no longer exist, or that ended done or canceled, are removed; the
   * packages folder is made private again if it is not (packages are made in it without a look).
   */
  async sweep(): Promise<void> {
    try {
      await keepPrivate(this.packagesDir);
      const removed = await sweepPackages(this.packagesDir, () => this.store.list(), this.isRunning);
      removed.push(...(await removeStaleDrops(this.stagingDir, () => this.store.list(), START_DROP_AGE_MS)));
      this.swept = removed;
      if (removed.length > 0) this.logger.info('removed stale packages', { count: removed.length });
    } catch (e) {
      this.logger.warn('stale packages could not be removed', { error: String(e) });
    }
  }

  /**
   * Web mode's drops that hold `paths` (the drops themselves, or files in them), unless a job may
   * package them again: all of a session that ends; as a scan's card is removed, those of this
   * process no other card was read from (its page can no longer submit them).
   */
  async releaseDrops(paths: readonly string[], why: DropRelease = 'session ended'): Promise<void> {
    try {
      const drops = [...new Set(paths.map((p) => stagedDropOf(this.stagingDir, p)))].filter(
        (d): d is string => d !== undefined,
      );
      const unused: string[] = [];
      for (const d of drops) if (why === 'session ended' || !(await this.heldForPage(d))) unused.push(d);
      const removed = await releaseDrops(this.stagingDir, unused, () => this.store.list(), mayPackageAgain);
      if (removed.length > 0) this.logger.info('removed staged drops', { count: removed.length, why });
    } catch (e) {
      this.logger.warn('staged drops could not be removed', { error: String(e), why });
    }
  }

  /**
   * Whether a page may still submit the drop's scan: for a drop of this process, while one of its
   * cards shows a scan read from there; for one of another web mode, while that runs.
   */
  private async heldForPage(drop: string): Promise<boolean> {
    const scans = this.opts.scans;
    if (scans && (await ownDrop(drop))) return scans.offers(drop);
    return heldByLiveSession(drop);
  }

  /** What a removed job leaves: its package, partial downloads, and staged drops no other job needs. */
  async removed(rec: JobRecord): Promise<Leftover[]> {
    return [
      ...(await removePackage(this.packagesDir, rec.id)),
      ...(await removePartialDownloads(rec)),
      ...(await removeStagedDrops(this.stagingDir, rec, () => this.store.list(), mayPackageAgain)),
      ...(await this.discardEngineJob(rec)),
    ];
  }

  /**
   * What a job done or canceled (and no longer run) leaves: a canceled job's package and partial
   * downloads (the done job's package went with its last step), and the staged drops it was made from
   * when no other job may need them again and no page of a web mode still running may submit them again (its
   * card still offers the scan, and "Start again" the job: a review found both failing once the copy
   * had gone with the first job, saying to put back a file the user never saw). Those go with the session.
   * On the app's local engine, the job there goes too: a canceled job's (the engine knows nothing of
   * a cancel, and went on making meshes of the scan, kept 7 days: a review), and a done job's, whose
   * meshes are saved in the output folder.
   */
  ended(rec: JobRecord): Promise<void> {
    const ending = this.end(rec).finally(() => this.ending.delete(ending));
    this.ending.add(ending);
    return ending;
  }

  /** Once every ended() under way is over (the queue closes the job database after it). */
  async settled(): Promise<void> {
    await Promise.all([...this.ending]);
  }

  private async end(rec: JobRecord): Promise<void> {
    try {
      const now = this.store.get(rec.id);
      if (!now || (now.state !== 'canceled' && now.state !== 'done')) return;
      if (now.state === 'canceled') {
        await removePackage(this.packagesDir, rec.id);
        await removePartialDownloads(now);
      }
      await removeStagedDrops(
        this.stagingDir,
        now,
        () => this.store.list(),
        mayPackageAgain,
        (drop) => this.heldForPage(drop),
      );
      await this.discardEngineJob(now);
    } catch (e) {
      this.logger.warn('an ended job’s files could not be removed', { jobId: rec.id, error: String(e) });
    }
  }

  /** Through the engine when it runs here (it stops processing first), else its folder alone. */
  private async discardEngineJob(rec: JobRecord): Promise<Leftover[]> {
    if (!engineJobOf(rec)) return [];
    const engine = await this.opts.runningLocalEngine?.()?.catch(() => undefined);
    return removeEngineJob(this.dataDir, rec, engine);
  }

  /**
   * Removes what ended jobs left on disk (packages, partial downloads), packages whose job is gone and
   * archives unpacked by a process that died; the jobs stay in the list. Says what was removed.
   */
  async prune(): Promise<Leftover[]> {
    await sweepTempFoldersOf(this.dataDir, { again: true });
    const removed: Leftover[] = [
      ...this.swept.splice(0),
      ...takeSweptTempFolders().map((f) => ({ kind: 'unpacked scan' as const, ...f, jobId: '' })),
      ...(await pruneLeftovers(this.packagesDir, () => this.store.list(), this.isRunning)),
    ];
    const jobs = this.store.list();
    for (const job of jobs.filter((j) => isTerminal(j.state) && !this.isRunning(j.id)))
      removed.push(
        ...(await removeStagedDrops(
          this.stagingDir,
          job,
          () => jobs,
          (o) => !isTerminal(o.state),
        )),
      );
    removed.push(...(await removeStaleDrops(this.stagingDir, () => this.store.list(), PRUNE_DROP_AGE_MS)));
    // Those of jobs done or canceled before their engine job went with them (older versions).
    for (const job of jobs.filter(
      (j) => (j.state === 'done' || j.state === 'canceled') && !this.isRunning(j.id),
    ))
      removed.push(...(await this.discardEngineJob(job)));
    removed.push(...(await pruneEngineJobs(this.dataDir, () => this.store.list())));
    if (removed.length > 0) this.logger.info('pruned', { items: removed.length });
    return removed;
  }
}
