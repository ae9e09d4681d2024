import { readFile, rm, stat, readdir } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { processAlive, processStart } from '../platform/process-alive.js';
import type { JobRecord } from './job-record.js';
import { sizeOf } from '../platform/size-of.js';
import type { Leftover } from './job-leftovers.js';

// Web mode's copies of dropped scans (`<data>/staging/<drop id>/…`, transport/web-stage.ts): copies of
// patient data, kept while a job may package them again or a page may still submit them.

/** Beside each drop: the pid of the web mode that made it. */
/** A drop folder's name: the UUID the page gave its drop (web-bridge.ts stageFiles). */
export const isStagedDropName = (name: string): boolean => /^[0-9a-f-]{36}$/.test(name);

export const stagedDropOwnerFile = (drop: string): string => `${drop}.owner`;

async function removeDrop(drop: string): Promise<void> {
  await rm(drop, { recursive: true, force: true });
  await rm(stagedDropOwnerFile(drop), { force: true });
}

/** What the owner file of a drop made by this process says: its pid, and when it started where known. */
export function stagedDropOwner(): string {
  return `${process.pid} ${processStart(process.pid) ?? ''}`.trim();
}

/**
 * Whether the web mode that made a drop is gone (a drop without an owner file is an older one's): its
 * pid names no process, or a process that started at another time than it did (the pid given again,
 * as in a container, where every start is pid 1).
 */
async function ownerGone(drop: string): Promise<boolean> {
  const [pidText, started] = (await readFile(stagedDropOwnerFile(drop), 'utf8').catch(() => '')).split(' ');
  const pid = Number.parseInt(pidText ?? '', 10);
  if (!(pid > 0)) return false;
  if (!processAlive(pid)) return true;
  const now = processStart(pid);
  if (started === undefined || now === undefined) return false;
  // An owner file of an older version says the ticks alone.
  return started.includes(':') ? started !== now : started !== now.slice(now.lastIndexOf(':') + 1);
}

/** Whether this process (its web mode) made the drop. */
export async function ownDrop(drop: string): Promise<boolean> {
  return (await readFile(stagedDropOwnerFile(drop), 'utf8').catch(() => '')) === stagedDropOwner();
}

/** Whether a web mode that still runs made the drop: its page may submit the scan again. */
export async function heldByLiveSession(drop: string): Promise<boolean> {
  const owner = await readFile(stagedDropOwnerFile(drop), 'utf8').catch(() => '');
  return Number.parseInt(owner, 10) > 0 && !(await ownerGone(drop));
}

/**
 * The drops a web mode session made, as it ends: removed unless a job that may package its scan again
 * was made from them (`needs`: queued, running, failed). The page that could submit them again is gone
 * with the session; while it lived, they stayed for it, also after the jobs made from them ended.
 */
export async function releaseDrops(
  stagingDir: string,
  drops: readonly string[],
  listJobs: () => JobRecord[],
  needs: (job: JobRecord) => boolean,
): Promise<Leftover[]> {
  const used = new Set(
    listJobs()
      .filter(needs)
      .flatMap((j) => j.sourceFiles.map((f) => stagedDropOf(stagingDir, f)).filter(Boolean)),
  );
  const removed: Leftover[] = [];
  for (const drop of drops) {
    if (stagedDropOf(stagingDir, join(drop, 'x')) !== drop || used.has(drop)) continue;
    const bytes = await sizeOf(drop);
    if (bytes === null) continue;
    await removeDrop(drop);
    removed.push({ kind: 'staged drop', path: drop, bytes, jobId: drop.split(sep).pop()! });
  }
  return removed;
}

/** Web mode's copy of a dropped scan (`<data>/staging/<drop id>/…`) that holds `file`, if it is one. */
export function stagedDropOf(stagingDir: string, file: string): string | undefined {
  const rel = relative(stagingDir, file);
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  const drop = rel.split(sep)[0] ?? '';
  return isStagedDropName(drop) ? join(stagingDir, drop) : undefined;
}

/**
 * Removes the staged drops `job` was made from, unless another job still needs them: `needs(other)`
 * says whether a job may package its scan again (a queued or running one, a failed one until pruned).
 */
export async function removeStagedDrops(
  stagingDir: string,
  job: JobRecord,
  others: () => JobRecord[],
  needs: (other: JobRecord) => boolean,
  /** A drop kept whatever the jobs: one the page of this live session may submit again. */
  held: (drop: string) => Promise<boolean> = () => Promise.resolve(false),
): Promise<Leftover[]> {
  const dropsOf = (j: JobRecord): Set<string> =>
    new Set(j.sourceFiles.map((f) => stagedDropOf(stagingDir, f)).filter((d): d is string => !!d));
  const own = dropsOf(job);
  // Most jobs come from files the user chose, not from drops: the other jobs are not even read then.
  if (own.size === 0) return [];
  const kept = new Set(
    others()
      .filter((o) => o.id !== job.id && needs(o))
      .flatMap((o) => [...dropsOf(o)]),
  );
  const removed: Leftover[] = [];
  for (const drop of own) {
    if (kept.has(drop) || (await held(drop))) continue;
    const bytes = await sizeOf(drop);
    if (bytes === null) continue;
    await removeDrop(drop);
    removed.push({ kind: 'staged drop', path: drop, bytes, jobId: job.id });
  }
  return removed;
}

/**
 * Staged drops no job was made from and nobody touched for `minAgeMs`, or whose web mode is gone:
 * left by a removed job, or dropped and never submitted. Younger ones of a live web mode may be on its
 * page now, about to be submitted.
 */
export async function removeStaleDrops(
  stagingDir: string,
  listJobs: () => JobRecord[],
  minAgeMs: number,
  now = Date.now(),
): Promise<Leftover[]> {
  const names = await readdir(stagingDir).catch(() => [] as string[]);
  const used = new Set(
    listJobs().flatMap((j) => j.sourceFiles.map((f) => stagedDropOf(stagingDir, f)).filter(Boolean)),
  );
  const removed: Leftover[] = [];
  for (const name of names) {
    const drop = join(stagingDir, name);
    if (!isStagedDropName(name) || used.has(drop)) continue;
    const s = await stat(drop).catch(() => null);
    if (!s) continue;
    // Made by a web mode that is gone (closed without a word, or killed): no page can submit it now.
    if (now - s.mtimeMs < minAgeMs && !(await ownerGone(drop))) continue;
    const bytes = (await sizeOf(drop)) ?? 0;
    await removeDrop(drop);
    removed.push({ kind: 'staged drop', path: drop, bytes, jobId: name });
  }
  return removed;
}
