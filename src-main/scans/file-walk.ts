import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import type { ScanProblem, SkippedFile } from '../../src-shared/scans.js';
import { unreadableWords } from './classify.js';

/** A file to look at, with the name to show the user (zip entries show as archive/entry). */
export interface Candidate {
  path: string;
  display: string;
  /** How many archives deep this file sits (0 for files the user dropped or that are in dropped folders). */
  depth: number;
  /** The file on the user's disk this came from: itself, or the dropped archive it was unpacked from. */
  origin: string;
}

interface WalkResult {
  files: Candidate[];
  skipped: SkippedFile[];
  problems: ScanProblem[];
}

/** Folders that only ever hold operating-system clutter. */
const CLUTTER_DIRS = new Set([
  '__MACOSX',
  '.Trashes',
  '.Spotlight-V100',
  '.fseventsd',
  '$RECYCLE.BIN',
  'System Volume Information',
]);

export const LINK_OUTSIDE =
  'a link to somewhere outside the folder you dropped; drop that place itself if you meant it';
export const LINK_DANGLING = 'a link to something that does not exist';
export const LINK_LOOP = 'a link in a loop of links (it leads back to itself, never to a file)';
export const LINK_TO_DEVICE = 'a link to a device, pipe or socket, not to a file';
export const NOT_REGULAR = 'not a regular file (a device, pipe or socket)';

/** What readdir gives for a name that is not valid UTF-8: such a name cannot be opened by that text. */
const REPLACEMENT_CHAR = '\uFFFD';

/** A folder: the path the user knows it by, and where it really is (links resolved). */
interface Folder {
  path: string;
  real: string;
}

/** Where a link inside a dropped folder leads, and whether it is followed. */
type LinkOutcome =
  | { kind: 'file'; key: string }
  | { kind: 'folder'; real: string }
  /** Into a folder that is listed anyway (a loop back up, or a second way in): nothing to add. */
  | { kind: 'listed' }
  | { kind: 'skip'; reason: string }
  | { kind: 'problem'; problem: ScanProblem };

/**
 * Lists the regular files under the given paths, recursing into folders. What the user dropped is
 * followed even when it is a link: they chose it. Inside a dropped folder, a link is followed only
 * when it leads somewhere inside that same folder: a folder of slices must not pull in /etc, a
 * patient file from elsewhere, or the whole disk. Every folder is entered once (by device and
 * inode), so link loops end. Missing or unreadable paths become problems, not exceptions.
 */
export async function walkPaths(
  paths: string[],
  opts: { signal?: AbortSignal; maxFiles?: number } = {},
): Promise<WalkResult> {
  const walk = new Walk(opts.maxFiles ?? 500_000, opts.signal);
  for (const input of paths) {
    if (walk.stopped()) break;
    await walk.dropped(input);
  }
  return walk.result();
}

/** One walk over what was dropped: what it found so far, and what it has seen. */
class Walk {
  private readonly out: WalkResult = { files: [], skipped: [], problems: [] };
  /** Folders listed or to be listed, by device and inode. */
  private readonly visited = new Set<string>();
  private readonly seenFiles = new Set<string>();
  private limitHit = false;

  constructor(
    private readonly maxFiles: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  stopped(): boolean {
    return this.limitHit || this.signal?.aborted === true;
  }

  /** Takes in one path the user dropped: a file, or a folder walked whole. */
  async dropped(input: string): Promise<void> {
    let st;
    try {
      st = await stat(input);
    } catch (e) {
      this.out.problems.push(await unreadable(input, e));
      return;
    }
    if (st.isFile()) return this.addFile(input, `${st.dev}:${st.ino}`);
    if (!st.isDirectory()) {
      this.out.skipped.push({ path: input, reason: 'not a file or folder (a device or pipe)' });
      return;
    }
    let real;
    try {
      real = await realpath(input);
    } catch (e) {
      this.out.problems.push(await unreadable(input, e));
      return;
    }
    this.visited.add(`${st.dev}:${st.ino}`);
    await this.walkFolder({ path: input, real });
  }

  /** Lists a dropped folder and every folder under it, depth first, without recursion (deep trees). */
  private async walkFolder(dropped: Folder): Promise<void> {
    const stack: Folder[] = [dropped];
    while (stack.length > 0 && !this.stopped()) {
      const subdirs = await this.listFolder(stack.pop()!, dropped);
      // Sorted so that results do not depend on directory order.
      subdirs.sort((a, b) => (a.path < b.path ? 1 : a.path > b.path ? -1 : 0));
      stack.push(...subdirs);
    }
  }

  /** Takes in the files of one folder; returns its folders to list next (links to them included). */
  private async listFolder(dir: Folder, dropped: Folder): Promise<Folder[]> {
    let entries;
    try {
      // One call for the whole listing: iterating an opendir handle costs a promise per entry.
      entries = await readdir(dir.path, { withFileTypes: true });
    } catch (e) {
      this.out.problems.push(await unreadable(dir.path, e));
      return [];
    }
    const subdirs: Folder[] = [];
    const prefix = childPrefix(dir.path);
    // Indexed: for...of makes an iterator result per entry until the JIT has compiled the loop.
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      const name = entry.name;
      const path = prefix + name;
      if (name.includes(REPLACEMENT_CHAR) && (await nameIsNotText(path))) {
        this.out.problems.push(badName(path));
      } else if (entry.isFile()) {
        // No stat for plain files: a folder of thousands of slices costs one readdir, not a stat each.
        this.addFile(path, path);
      } else if (entry.isDirectory()) {
        if (CLUTTER_DIRS.has(name) || !(await this.firstVisit(path))) continue;
        subdirs.push({ path, real: childPrefix(dir.real) + name });
      } else if (entry.isSymbolicLink()) {
        const link = await followLink(path, dir.real, dropped, this.visited);
        if (link.kind === 'file') this.addFile(path, link.key);
        else if (link.kind === 'folder') subdirs.push({ path, real: link.real });
        else if (link.kind === 'skip') this.out.skipped.push({ path, reason: link.reason });
        else if (link.kind === 'problem') this.out.problems.push(link.problem);
      } else {
        this.out.skipped.push({ path, reason: NOT_REGULAR });
      }
    }
    return subdirs;
  }

  /** Whether a folder is met for the first time (not a second way into one, as a bind mount is). */
  private async firstVisit(path: string): Promise<boolean> {
    let s;
    try {
      s = await stat(path);
    } catch (e) {
      this.out.problems.push(await unreadable(path, e));
      return false;
    }
    const key = `${s.dev}:${s.ino}`;
    if (this.visited.has(key)) return false;
    this.visited.add(key);
    return true;
  }

  private addFile(path: string, key: string): void {
    // The same file reached twice (by name, or through a link to it) counts once.
    if (this.seenFiles.has(key)) return;
    this.seenFiles.add(key);
    if (this.out.files.length >= this.maxFiles) {
      this.limitHit = true;
      return;
    }
    this.out.files.push({ path, display: path, depth: 0, origin: path });
  }

  result(): WalkResult {
    if (this.limitHit) {
      const max = this.maxFiles.toLocaleString('en');
      this.out.problems.push({
        severity: 'warning',
        code: 'too-many-files',
        message: `More than ${max} files were found; only the first ${max} were looked at. Drop the scan's own folder rather than a whole disk.`,
      });
    }
    return this.out;
  }
}

/**
 * Decides about one link inside a dropped folder. Its target is resolved (all links along the way)
 * before anything is read, so that a link to / or /proc/self is never entered. `dirReal` is where
 * the folder holding the link really is.
 */
async function followLink(
  path: string,
  dirReal: string,
  dropped: Folder,
  visited: Set<string>,
): Promise<LinkOutcome> {
  let target;
  try {
    target = await realpath(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { kind: 'skip', reason: LINK_LOOP };
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'skip', reason: LINK_DANGLING };
    return { kind: 'problem', problem: await unreadable(path, e) };
  }
  let s;
  try {
    // Metadata only, so that a link to /dev/zero or a pipe is named as such: nothing is opened.
    s = await stat(target);
  } catch (e) {
    return { kind: 'problem', problem: await unreadable(path, e) };
  }
  if (!s.isFile() && !s.isDirectory()) return { kind: 'skip', reason: LINK_TO_DEVICE };
  if (!isInside(dropped.real, target)) return { kind: 'skip', reason: LINK_OUTSIDE };
  if (s.isFile()) {
    // Keyed by the path the file has when reached without the link, so that it counts once.
    return { kind: 'file', key: join(dropped.path, relative(dropped.real, target)) };
  }
  const key = `${s.dev}:${s.ino}`;
  // A link up to a folder that holds it is a loop; the folder is being listed already either way.
  if (isInside(target, dirReal) || visited.has(key)) return { kind: 'listed' };
  visited.add(key);
  return { kind: 'folder', real: target };
}

/** Whether `path` is `folder` or lies somewhere under it (both resolved, absolute). */
function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * What join(dir, name) puts before a name that readdir gave (a single part, never '.' or '..'):
 * join's answer for a stand-in name, less that name. One join per folder instead of one per file:
 * join normalises the whole path character by character, tens of microseconds a file before the
 * JIT has compiled it.
 */
function childPrefix(dir: string): string {
  return join(dir, '_').slice(0, -1);
}

/**
 * Whether a listed name that holds U+FFFD stands for bytes that are not UTF-8: then that text names
 * no file (a name may hold U+FFFD itself, and then it opens).
 */
async function nameIsNotText(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

function badName(path: string): ScanProblem {
  return {
    severity: 'error',
    code: 'unreadable',
    message: `${basename(path)} cannot be opened: its name is not valid text (UTF-8). Rename it and add it again.`,
    file: path,
  };
}

async function unreadable(path: string, e: unknown): Promise<ScanProblem> {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' && path.includes(REPLACEMENT_CHAR) && (await nameIsNotText(path)))
    return badName(path);
  const why =
    code === 'ENOENT'
      ? 'does not exist'
      : code === 'EACCES' || code === 'EPERM'
        ? 'cannot be read: permission denied'
        : code === 'ELOOP'
          ? 'is a loop of links'
          : code === 'ENAMETOOLONG'
            ? "cannot be read: it sits in so many folders, one inside another, that its full path is longer than the system allows. Move the scan's folder nearer the top of the disk"
            : `cannot be read (${unreadableWords(e)})`;
  return { severity: 'error', code: 'unreadable', message: `${basename(path)} ${why}.`, file: path };
}
