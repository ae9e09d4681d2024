import { closeSync, constants, fstatSync, openSync } from 'node:fs';
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

export function openScanFileSync(path: string): number {
  const fd = openSync(path, READ);
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw notAFile(path);
  }
  return fd;
}

export async function openScanFile(path: string): Promise<FileHandle> {
  const file = await open(path, READ);
  if (!(await file.stat()).isFile()) {
    await file.close();
    throw notAFile(path);
  }
  return file;
}
