import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { ScanProblem, SkippedFile } from '../../src-shared/scans.js';

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

/**
 * Lists the regular files under the given paths, recursing into folders. Symbolic links are
 * followed, but every folder is entered once (by device and inode), so link loops end.
 * Missing or unreadable paths become problems, not exceptions.
 */
export async function walkPaths(
  paths: string[],
  opts: { signal?: AbortSignal; maxFiles?: number } = {},
): Promise<WalkResult> {
  const maxFiles = opts.maxFiles ?? 500_000;
  const out: WalkResult = { files: [], skipped: [], problems: [] };
  const visited = new Set<string>();
  const seenFiles = new Set<string>();
  let limitHit = false;

  const addFile = (path: string, key: string): void => {
    // The same file reached twice (by name, or through a link to it) counts once.
    if (seenFiles.has(key)) return;
    seenFiles.add(key);
    if (out.files.length >= maxFiles) {
      limitHit = true;
      return;
    }
    out.files.push({ path, display: path, depth: 0, origin: path });
  };

  for (const input of paths) {
    let st;
    try {
      st = await stat(input);
    } catch (e) {
      out.problems.push(unreadable(input, e));
      continue;
    }
    if (st.isFile()) {
      addFile(input, `${st.dev}:${st.ino}`);
      continue;
    }
    if (!st.isDirectory()) {
      out.skipped.push({ path: input, reason: 'not a file or folder (a device or pipe)' });
      continue;
    }
    // Iterative depth-first walk: deep trees cannot overflow the stack.
    const stack: string[] = [input];
    visited.add(`${st.dev}:${st.ino}`);
    while (stack.length > 0 && !limitHit) {
      if (opts.signal?.aborted) return out;
      const dir = stack.pop()!;
      let entries;
      try {
        // One call for the whole listing: iterating an opendir handle costs a promise per entry.
        entries = await readdir(dir, { withFileTypes: true });
      } catch (e) {
        out.problems.push(unreadable(dir, e));
        continue;
      }
      const subdirs: string[] = [];
      const prefix = childPrefix(dir);
      // Indexed: for...of makes an iterator result per entry until the JIT has compiled the loop.
      for (let i = 0; i < entries.length; i++) {
        const entry = entries[i]!;
        const path = prefix + entry.name;
        if (entry.isDirectory() && CLUTTER_DIRS.has(entry.name)) continue;
        if (entry.isFile()) {
          // No stat for plain files: a folder of thousands of slices costs one readdir, not a stat each.
          addFile(path, path);
        } else if (entry.isDirectory() || entry.isSymbolicLink()) {
          let s;
          try {
            s = await stat(path);
          } catch (e) {
            if (entry.isSymbolicLink())
              out.skipped.push({ path, reason: 'a link to something that does not exist' });
            else out.problems.push(unreadable(path, e));
            continue;
          }
          const key = `${s.dev}:${s.ino}`;
          if (s.isDirectory()) {
            if (visited.has(key)) continue; // a link loop, or a second way into a folder already listed
            visited.add(key);
            subdirs.push(path);
          } else if (s.isFile()) {
            addFile(path, key);
          }
        } else {
          out.skipped.push({ path, reason: 'not a regular file (a device, pipe or socket)' });
        }
      }
      // Sorted so that results do not depend on directory order.
      subdirs.sort().reverse();
      stack.push(...subdirs);
    }
  }
  if (limitHit) {
    out.problems.push({
      severity: 'warning',
      code: 'too-many-files',
      message: `More than ${maxFiles.toLocaleString('en')} files were found; only the first ${maxFiles.toLocaleString('en')} were looked at. Drop the scan's own folder rather than a whole disk.`,
    });
  }
  return out;
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

function unreadable(path: string, e: unknown): ScanProblem {
  const code = (e as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'does not exist'
      : code === 'EACCES' || code === 'EPERM'
        ? 'cannot be read: permission denied'
        : code === 'ELOOP'
          ? 'is a loop of links'
          : `cannot be read (${code ?? (e as Error).message})`;
  return { severity: 'error', code: 'unreadable', message: `${basename(path)} ${why}.`, file: path };
}
