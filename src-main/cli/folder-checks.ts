import { stat } from 'node:fs/promises';
import { AppError } from '../../src-shared/errors.js';
import { folderProblem } from '../platform/folder-problem.js';
import { expandHome } from '../platform/home-path.js';

/**
 * --out as typed: `~/` expanded (the shell leaves `--out=~/x` alone), refused in words when empty, a
 * file, or a place no folder can be made. Gives the folder to use.
 */
export async function checkOutFolder(typed: string): Promise<string> {
  if (typed.trim() === '')
    throw new AppError('bad-input', '--out is empty.', {
      action: 'Give the folder the meshes go to, e.g. --out ~/meshes',
    });
  const path = expandHome(typed);
  const problem = await folderProblem(path);
  if (problem)
    throw new AppError('bad-input', `--out ${typed} ${problem}.`, {
      action: 'Give a folder you can write in (it is made when missing).',
    });
  return path;
}

/** Scan paths as typed, `~/` expanded; one that does not exist is refused naming it as typed. */
export async function checkScanPaths(typed: string[]): Promise<string[]> {
  const paths = typed.map((t) => expandHome(t));
  const missing: string[] = [];
  for (const [i, p] of paths.entries()) {
    const there = await stat(p).then(
      () => true,
      (e: NodeJS.ErrnoException) => e.code !== 'ENOENT',
    );
    if (!there) missing.push(typed[i] ?? p);
  }
  if (missing.length > 0)
    throw new AppError('bad-input', `${missing.map((m) => `${m} does not exist`).join('; ')}.`, {
      action: 'Give DICOM folders, zips of them or multi-frame .dcm files that are there.',
    });
  return paths;
}
