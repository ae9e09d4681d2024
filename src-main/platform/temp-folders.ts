import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, rmSync, type Stats } from 'node:fs';
import { mkdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRIVATE_DIR_MODE } from './private-files.js';
import { processAlive } from './process-alive.js';
import { sizeOf } from './size-of.js';

/**
 * The app's temporary folders (unpacked archives, the command line's local engine): copies of patient
 * data that must not outlive their process. Each is named for the process that owns it
 * (`<prefix><pid>-<random>`), so that any later process can tell a folder nobody owns any more from one
 * in use: a process sweeps the stale folders of its user when it opens the data folder
 * (sweepTempFoldersOf) or else when it makes its first one, removes its own
 * when done, and on Ctrl+C or a kill signal removes them before it dies. What a SIGKILL or a power cut
 * leaves is swept by the next process.
 */
export const TEMP_FOLDER_PREFIXES = ['scan2mesh-scans-', 'scan2mesh-engine-'] as const;
export type TempFolderPrefix = (typeof TEMP_FOLDER_PREFIXES)[number];

/**
 * A folder untouched this long is stale whoever owns it: a pid can be reused by another program, and a
 * folder from before folders carried their owner's pid says nothing else about its owner.
 */
export const STALE_AFTER_MS = 24 * 3600_000;
/** A live owner touches its folders this often, so that they never look a day old. */
const REFRESH_EVERY_MS = 3600_000;

export interface OwnedTempFolder {
  readonly path: string;
  /** Removes the folder and all it holds; it is no longer this process's. */
  remove(): Promise<void>;
}

/** Folders this process owns now: removed on a fatal signal, never swept by this process. */
const owned = new Set<string>();
/** Parents this process has swept: once per process, not at every new folder. */
const swept = new Set<string>();

/**
 * A new folder private to the user (0700) in `parent` (default: the system's temporary folder), named
 * for this process. The first call for a parent first removes the stale folders there.
 */
export async function createOwnedTempFolder(
  prefix: TempFolderPrefix,
  parent: string = tmpdir(),
): Promise<OwnedTempFolder> {
  if (!swept.has(parent)) {
    swept.add(parent);
    await sweepStaleTempFolders(parent);
  }
  // Never chmod the parent: it may be the system's shared temporary folder.
  await mkdir(parent, { recursive: true, mode: PRIVATE_DIR_MODE });
  const path = await newFolder(join(parent, `${prefix}${process.pid}-`));
  watchSignals();
  const refresh = setInterval(() => void touch(path), REFRESH_EVERY_MS);
  refresh.unref();
  return {
    path,
    async remove() {
      clearInterval(refresh);
      try {
        await rm(path, { recursive: true, force: true, maxRetries: 3 });
      } finally {
        // Still ours while it is being removed: a signal meanwhile removes the rest.
        owned.delete(path);
        if (owned.size === 0) unwatchSignals();
      }
    },
  };
}

/**
 * A folder at `stem` and a random suffix that did not exist, counted as this process's before it
 * exists: a sweep running meanwhile in this process never takes it for an earlier process's.
 */
async function newFolder(stem: string): Promise<string> {
  for (;;) {
    const path = `${stem}${randomBytes(6).toString('hex')}`;
    owned.add(path);
    try {
      await mkdir(path, { mode: PRIVATE_DIR_MODE });
      return path;
    } catch (e) {
      owned.delete(path);
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

async function touch(path: string): Promise<void> {
  const now = new Date();
  await utimes(path, now, now).catch(() => {});
}

/** The pid in a temporary folder's name, or undefined for a name without one. */
function ownerPidOf(name: string): number | undefined {
  for (const prefix of TEMP_FOLDER_PREFIXES) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d+)-[^-]+$/.exec(name.slice(prefix.length));
    return m ? Number(m[1]) : undefined;
  }
  return undefined;
}

function isOurs(name: string): boolean {
  return TEMP_FOLDER_PREFIXES.some((p) => name.startsWith(p));
}

/**
 * Whether nobody owns the folder any more: its owner's process is gone (or is this one, which did not
 * make it: an earlier process had our pid), or it was untouched for a day.
 */
function isStale(path: string, name: string, mtimeMs: number, now: number): boolean {
  if (now - mtimeMs > STALE_AFTER_MS) return true;
  const pid = ownerPidOf(name);
  if (pid === undefined) return false;
  if (pid === process.pid) return !owned.has(path);
  return !processAlive(pid);
}

/** A stale folder a sweep removed, and how much it held. */
export interface SweptFolder {
  path: string;
  bytes: number;
}

/** Where the app's temporary folders are: the app's own under the data folder, the system's. */
export function tempFolderParents(dataDir: string): string[] {
  return [join(dataDir, 'tmp', 'scans'), tmpdir()];
}

/**
 * At the start of a process that opens the data folder (every command, web mode, the app): removes
 * what a killed process left in every place the app makes temporary folders, whether or not this
 * process will make one (a crash's copies of patient data must not wait for the next unpacking).
 * Once per place and process; `again` (prune) sweeps anew: a process may have died since.
 */
export async function sweepTempFoldersOf(
  dataDir: string,
  opts: { again?: boolean; now?: number } = {},
): Promise<SweptFolder[]> {
  const removed: SweptFolder[] = [];
  for (const parent of tempFolderParents(dataDir)) {
    if (swept.has(parent) && !opts.again) continue;
    swept.add(parent);
    removed.push(...(await sweepParent(parent, opts.now ?? Date.now())));
  }
  notReported.push(...removed);
  return removed;
}

/** Swept by sweepTempFoldersOf and not yet listed by a prune. */
const notReported: SweptFolder[] = [];

/**
 * What this process's sweeps removed since the last call: `prune` lists it, also what the sweep at
 * the start of the same command removed before prune ran.
 */
export function takeSweptTempFolders(): SweptFolder[] {
  return notReported.splice(0);
}

/**
 * Removes the app's stale temporary folders in `parent` that belong to this user, and says which. Only
 * real folders are looked at (a link is not followed), and nothing here ever fails the caller: a folder
 * that cannot be removed now is tried again by the next process.
 */
export async function sweepStaleTempFolders(parent: string = tmpdir(), now = Date.now()): Promise<string[]> {
  return (await sweepParent(parent, now)).map((f) => f.path);
}

async function sweepParent(parent: string, now: number): Promise<SweptFolder[]> {
  // Listed and looked at with direct system calls, not through the thread pool: a temporary folder
  // may hold hundreds of folders, and a round trip each made every command start tens of ms later.
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    names = [];
  }
  const uid = process.getuid?.();
  const removed: SweptFolder[] = [];
  for (const name of names.filter(isOurs)) {
    const path = join(parent, name);
    const s = lstatOrNone(path);
    if (!s?.isDirectory() || (uid !== undefined && s.uid !== uid)) continue;
    if (!isStale(path, name, s.mtimeMs, now)) continue;
    try {
      const bytes = (await sizeOf(path)) ?? 0;
      await rm(path, { recursive: true, force: true, maxRetries: 3 });
      removed.push({ path, bytes });
    } catch {
      // Busy or not ours to remove after all: the next process tries again.
    }
  }
  return removed;
}

function lstatOrNone(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

const FATAL_SIGNALS: NodeJS.Signals[] =
  process.platform === 'win32' ? ['SIGINT', 'SIGTERM'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
let watching = false;

/**
 * Electron's main process quits the app in order on these signals (the app then removes its folders)
 * as long as Node does not listen for them: once Node has listened, they kill it at once.
 */
function signalsAreElectrons(): boolean {
  return 'electron' in process.versions && (process as { type?: string }).type === 'browser';
}

function watchSignals(): void {
  if (watching || signalsAreElectrons()) return;
  watching = true;
  // First in line, so that it sees every other listener still registered (a `once` one removes itself).
  for (const s of FATAL_SIGNALS) process.prependListener(s, onFatalSignal);
}

function unwatchSignals(): void {
  if (!watching) return;
  watching = false;
  for (const s of FATAL_SIGNALS) process.off(s, onFatalSignal);
}

/**
 * A signal that would end the process: when something else listens for it, that code stops the process
 * in order and removes its folders on the way (e.g. `submit` waiting for its jobs). Otherwise the
 * signal would have killed the process at once: the folders are removed now, synchronously (nothing
 * else runs meanwhile), and the signal is raised again so that the process ends as it would have.
 */
function onFatalSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  for (const path of owned) removeWhole(path);
  owned.clear();
  unwatchSignals();
  process.kill(process.pid, signal);
}

/** Attempts at removing a folder on a fatal signal before leaving it to the next process's sweep. */
const REMOVE_ATTEMPTS = 5;

/**
 * Removes `path` now, synchronously. File work this process began before the signal goes on in the
 * thread pool meanwhile: a file it creates after the removal listed its folder makes that folder's
 * removal fail as not empty, and Node's retries only retry the folder, never what is in it (CI once
 * kept an unpacked scan that way). Each attempt lists anew; no new work starts while this runs, so
 * what was under way has landed by the next attempt. A file can no longer be created once its folder
 * is gone (nothing here makes folders recursively).
 */
function removeWhole(path: string): void {
  for (let attempt = 0; attempt < REMOVE_ATTEMPTS && existsSync(path); attempt++) {
    try {
      rmSync(path, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // Tried again; what is left after the last attempt goes with the next process's sweep.
    }
  }
}
