import { chmod, mkdir, readdir, rm, rmdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isTerminal } from '../../src-shared/jobs.js';
import { findJobFolder, meshPathIn, releaseEmptyJobFolder } from './output-folder.js';
import { removeFile, stagingPath } from './output-place.js';
import type { JobRecord } from './job-record.js';
import { PRIVATE_DIR_MODE, privateDir } from '../platform/private-files.js';
import { sizeOf } from '../platform/size-of.js';

/**
 * What a job leaves on disk besides its meshes: the package of its scan (a copy of patient data, under
 * the data folder's packages/) and the staging files of downloads that did not finish (beside the
 * meshes). Packages are private to the user while they exist (0700 folders, 0600 files) and are
 * removed once nothing will send them again.
 */

export interface Leftover {
  kind: 'package' | 'orphaned package' | 'partial download' | 'staged drop' | 'unpacked scan' | 'engine job';
  path: string;
  bytes: number;
  /** The job it belonged to (the folder's name for an orphaned package; empty for an unpacked scan). */
  jobId: string;
}

// One way to make a folder private (platform/private-files.ts); its callers here import it from here.
export { privateDir };

/**
 * A new, empty folder private to the user, inside `parent` (made private when missing). One mkdir in
 * the common case, where the folder does not exist yet; one that does is emptied first.
 */
export async function freshPrivateDir(parent: string, dir: string): Promise<void> {
  try {
    await mkdir(dir, { mode: PRIVATE_DIR_MODE });
    return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') await rm(dir, { recursive: true, force: true });
    else if (code === 'ENOENT') await privateDir(parent);
    else throw e;
  }
  await mkdir(dir, { mode: PRIVATE_DIR_MODE });
}

/** Makes a folder that exists private again; nothing when it does not exist. */
export async function keepPrivate(dir: string): Promise<void> {
  try {
    await chmod(dir, PRIVATE_DIR_MODE);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

export function packageDirOf(packagesDir: string, jobId: string): string {
  return join(packagesDir, jobId);
}

/** Removes a job's package folder; says what it removed (nothing when there was none). */
export async function removePackage(
  packagesDir: string,
  jobId: string,
  kind: Leftover['kind'] = 'package',
): Promise<Leftover[]> {
  const path = packageDirOf(packagesDir, jobId);
  const bytes = await sizeOf(path);
  if (bytes === null) return [];
  await rm(path, { recursive: true, force: true });
  return [{ kind, path, bytes, jobId }];
}

/**
 * Removes a job's package once it is no longer needed: its recorded file and the folder, when that is
 * all there is (two calls); anything else in the folder, or a package not recorded, the long way.
 */
export async function removeJobPackage(packagesDir: string, job: JobRecord): Promise<void> {
  const dir = packageDirOf(packagesDir, job.id);
  const recorded = job.inputs.map((i) => i.packagePath).filter((p): p is string => p !== undefined);
  if (recorded.length > 0 && recorded.every((p) => dirname(p) === dir)) {
    try {
      for (const p of recorded) await removeFile(p);
      await rmdir(dir);
      return;
    } catch {
      // Not empty, or not there: the long way below says which.
    }
  }
  await removePackage(packagesDir, job.id);
}

/** Staging files of a job's meshes that were not saved, and the `.part` files of their downloads. */
export async function removePartialDownloads(job: JobRecord): Promise<Leftover[]> {
  const removed: Leftover[] = [];
  let folder: string | undefined;
  try {
    folder = await findJobFolder(job);
  } catch {
    return removed; // a pattern that no longer names files named none then either
  }
  for (const output of job.outputs) {
    if (output.status === 'saved') continue;
    let staging: string;
    try {
      staging = stagingPath(meshPathIn(folder, job, output), job.id, output.idx);
    } catch {
      continue; // a pattern that no longer names files named none then either
    }
    const dir = dirname(staging);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    const own = basename(staging);
    for (const name of names) {
      if (name !== own && !(name.startsWith(`.${own}.`) && name.endsWith('.part'))) continue;
      const path = join(dir, name);
      const bytes = (await sizeOf(path)) ?? 0;
      await rm(path, { force: true });
      removed.push({ kind: 'partial download', path, bytes, jobId: job.id });
    }
  }
  await releaseEmptyJobFolder(job);
  return removed;
}

/**
 * Package folders that nothing will send again: those of jobs gone from the list, and of jobs done or
 * canceled (a crash can come between a job's end and its package's removal). Failed jobs keep theirs
 * for a retry, until `prune` or their removal. The folder is read before the list, so that a package
 * made meanwhile by another process belongs to a job this list already holds.
 */
export async function sweepPackages(
  packagesDir: string,
  listJobs: () => JobRecord[],
  busy: (jobId: string) => boolean,
): Promise<Leftover[]> {
  const names = await readdir(packagesDir).catch(() => [] as string[]);
  const jobs = new Map(listJobs().map((j) => [j.id, j]));
  const removed: Leftover[] = [];
  for (const name of names) {
    const job = jobs.get(name);
    if (!job) removed.push(...(await removePackage(packagesDir, name, 'orphaned package')));
    else if ((job.state === 'done' || job.state === 'canceled') && !busy(name))
      removed.push(...(await removePackage(packagesDir, name)));
  }
  return removed;
}

/** `prune`: what ended jobs (done, failed, canceled) left, and packages of jobs that no longer exist. */
export async function pruneLeftovers(
  packagesDir: string,
  listJobs: () => JobRecord[],
  busy: (jobId: string) => boolean,
): Promise<Leftover[]> {
  const names = await readdir(packagesDir).catch(() => [] as string[]);
  const jobs = listJobs();
  const known = new Set(jobs.map((j) => j.id));
  const removed: Leftover[] = [];
  for (const job of jobs) {
    if (!isTerminal(job.state) || busy(job.id)) continue;
    removed.push(...(await removePackage(packagesDir, job.id)), ...(await removePartialDownloads(job)));
  }
  for (const name of names.filter((n) => !known.has(n)))
    removed.push(...(await removePackage(packagesDir, name, 'orphaned package')));
  return removed;
}
