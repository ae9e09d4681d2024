import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { AppError } from '../../src-shared/errors.js';

/**
 * Opening a file of a scan the user dropped, to read it. Between the look at a folder and the read
 * a file may have been swapped for a pipe or a device: opened the usual way, a pipe blocks the
 * open until someone writes to it, which holds a thread of the pool for good (and with it every
 * later read, and the end of the process). Opened non-blocking (no effect on regular files), then
 * refused in words unless it is still a regular file.
 */
const READ = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

function notAFile(path: string): AppError {
  return new AppError(
    'bad-input',
    `${basename(path)} is no longer a regular file: it was replaced (by a pipe or a device) after the scan was looked at.`,
    { action: 'Drop the scan again.' },
  );
}

/**
 * Which file a stat is of, and in which state: the device and inode say which file it is (a file
 * swapped for a link, or replaced, is another), the size and the modification time whether it was
 * written to since. Intake keeps it for each file it looked at (ByteSource.identity); the file is
 * checked against it when read to be sent. Not the change time: a hard link made to the file (a
 * backup tool), a permission or an extended attribute (a virus scanner's mark) changes it, not the
 * bytes.
 */
export function fileIdentity(s: Stats): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
}

/**
 * Refused in words when the file open at `path` is not the one intake looked at (`expected`, its
 * fileIdentity). What is sent must be what was checked: a slice rewritten since could hold other
 * geometry or another patient, and one swapped for a link could be any file the user can read.
 */
function checkSameFile(path: string, s: Stats, expected: string | undefined): void {
  if (expected === undefined || expected === '' || fileIdentity(s) === expected) return;
  throw new AppError(
    'bad-input',
    `${basename(path)} changed after the scan was looked at (it was written to, replaced or swapped for a link), so it is not sent: what is sent must be what was checked.`,
    { action: 'Drop the scan again, once nothing is writing to its folder.' },
  );
}

export function openScanFileSync(path: string): number {
  const fd = openSync(path, READ);
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw notAFile(path);
  }
  return fd;
}

/** `expected`: the file's fileIdentity when intake looked at it; the file must still be that one. */
export async function openScanFile(path: string, expected?: string): Promise<FileHandle> {
  const file = await open(path, READ);
  try {
    const s = await file.stat();
    if (!s.isFile()) throw notAFile(path);
    checkSameFile(path, s, expected);
  } catch (e) {
    await file.close();
    throw e;
  }
  return file;
}
