import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LOCAL_ENGINE_PROFILE } from '../../src-shared/profiles.js';
import { embeddedEngineDir } from '../platform/paths.js';
import type { Leftover } from './job-leftovers.js';
import { sizeOf } from '../platform/size-of.js';
import type { JobRecord } from './job-record.js';
import type { RunningEngine } from '../engine/local-engine.js';

/**
 * What the embedded local engine (the app's and web mode's, in the data folder's engine/) keeps of
 * an app job: a folder per engine job, with a copy of the scan while it runs (and after an
 * interruption, since the engine resumes it at its next start), then its meshes. It must go with its
 * app job: the engine knows nothing of the queue, and would resume a removed job.
 */

/** An engine job created just now may not be recorded by its app job yet (the answer is in flight). */
const UNRECORDED_GRACE_MS = 60_000;

/** Engine job ids are UUIDs: anything else is not one of its folders, and never a path to follow. */
const ENGINE_JOB_ID = /^[A-Za-z0-9_-]+$/;

function engineJobsDir(dataDir: string): string {
  return join(embeddedEngineDir(dataDir), 'jobs');
}

/** True for a job on the local engine that runs in the app (not a service, nor another engine). */
export function onLocalEngine(rec: Pick<JobRecord, 'profileId' | 'connection'>): boolean {
  return rec.profileId === LOCAL_ENGINE_PROFILE.id && rec.connection === undefined;
}

/**
 * The engine job of an app job on the local engine, when it may be in this data folder. The command
 * line's own engine keeps its jobs elsewhere (a temporary folder): its ids are simply not found here.
 */
export function engineJobOf(rec: JobRecord): string | undefined {
  if (!onLocalEngine(rec)) return undefined;
  return rec.remoteJobId !== undefined && ENGINE_JOB_ID.test(rec.remoteJobId) ? rec.remoteJobId : undefined;
}

/**
 * Removes an engine job's folder: through the engine when it runs in this process (`engine`), which
 * stops processing it first and forgets it, else the folder alone (no engine on it here).
 */
async function removeEngineFolder(
  dataDir: string,
  engineJobId: string,
  jobId: string,
  engine?: Pick<RunningEngine, 'discard'>,
): Promise<Leftover[]> {
  const path = join(engineJobsDir(dataDir), engineJobId);
  const bytes = await sizeOf(path);
  if (engine) await engine.discard(engineJobId);
  if (bytes === null) return [];
  await rm(path, { recursive: true, force: true, maxRetries: 3 });
  return [{ kind: 'engine job', path, bytes, jobId }];
}

/** An app job's engine job folder, scan copy and all (removed, canceled or done: see job-files.ts). */
export function removeEngineJob(
  dataDir: string,
  rec: JobRecord,
  engine?: Pick<RunningEngine, 'discard'>,
): Promise<Leftover[]> {
  const engineJobId = engineJobOf(rec);
  return engineJobId ? removeEngineFolder(dataDir, engineJobId, rec.id, engine) : Promise.resolve([]);
}

/**
 * `prune`: engine job folders no app job refers to (their app job was removed, or made again as a new
 * engine job), unless made in the last minute (their app job may not have recorded them yet).
 */
export async function pruneEngineJobs(
  dataDir: string,
  listJobs: () => JobRecord[],
  now = Date.now(),
): Promise<Leftover[]> {
  const dir = engineJobsDir(dataDir);
  const names = await readdir(dir).catch(() => [] as string[]);
  const known = new Set(listJobs().map(engineJobOf));
  const removed: Leftover[] = [];
  for (const name of names) {
    if (known.has(name) || !ENGINE_JOB_ID.test(name)) continue;
    const touched = await stat(join(dir, name, 'job.json')).catch(() =>
      stat(join(dir, name)).catch(() => null),
    );
    if (!touched || now - touched.mtimeMs < UNRECORDED_GRACE_MS) continue;
    removed.push(...(await removeEngineFolder(dataDir, name, name)));
  }
  return removed;
}
