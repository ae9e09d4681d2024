import { mkdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { BodyReader } from './stage-body.js';

/** One file of a batch: where it goes, the dropped item it belongs to, its length. */
export interface StagedFile {
  target: string;
  item: string;
  size: number;
}

/** Why a batch was not kept, as its answer says it. */
export interface StageRefusal {
  status: number;
  words: string;
}

/** A batch refused in words, on its way out of the copy (and its clean-up). */
class Refused extends Error {
  constructor(readonly refusal: StageRefusal) {
    super(refusal.words);
  }
}

const NOTHING_KEPT = 'nothing of this part of the drop was kept. Add the scans again';
const CLASH: StageRefusal = {
  status: 400,
  words: `A file and a folder of the drop have the same name: ${NOTHING_KEPT}.`,
};
const ONE_FILE: StageRefusal = {
  status: 400,
  words: `Two files of the drop name one file on this disk (their names differ only in ways the disk does not tell apart): ${NOTHING_KEPT}, one at a time.`,
};

/**
 * The folders of a file made (copies of patient data: the user's alone, as the files are), returning
 * the first one made; a file in the way is a clash of names, said so.
 */
function folderFor(target: string): string | undefined {
  try {
    return mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') throw new Refused(CLASH);
    throw e;
  }
}

/** The file created anew; one already there (a folder, or a file under a name the disk takes for this one) is refused. */
async function created(target: string): Promise<FileHandle> {
  try {
    return await open(target, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    throw new Refused(statSync(target, { throwIfNoEntry: false })?.isDirectory() ? CLASH : ONE_FILE);
  }
}

/** The file-system failures a batch's own names cause, in words; undefined for the app's own (a 500). */
function refusalFor(e: unknown): StageRefusal | undefined {
  switch ((e as NodeJS.ErrnoException).code) {
    case 'ENOTDIR':
    case 'EISDIR':
      return CLASH;
    case 'ENAMETOOLONG':
      return {
        status: 400,
        words: `A file or folder name of the drop is longer than this disk allows: ${NOTHING_KEPT} with shorter names.`,
      };
    case 'ENOSPC':
    case 'EDQUOT':
      return {
        status: 507,
        words: `The disk that holds web mode's uploads is full: ${NOTHING_KEPT} once space is free.`,
      };
    default:
      return undefined;
  }
}

/**
 * Streams a batch's files from its body (after the manifest) to their targets, telling `wrote` how
 * far it got. A refusal in words when the body is shorter or longer than the manifest says, or when
 * the disk will not take a name; nothing of the batch is kept then, its folders included. Throws,
 * after the same clean-up, when the connection or the app fails.
 *
 * Each file is created anew ('wx'): a file already there (another batch's, under a name this disk
 * takes for the same one: a case, a Unicode form) is never written into, so two uploads can never
 * splice one file.
 */
export async function writeBatch(
  body: BodyReader,
  files: readonly StagedFile[],
  wrote: (bytes: number) => void,
): Promise<StageRefusal | undefined> {
  const written: string[] = [];
  const folders: string[] = [];
  let bytes = 0;
  try {
    /** The folders for a file, those made here noted (the clean-up removes them). */
    const makeFolders = (target: string): void => {
      const first = folderFor(target);
      for (let d = dirname(target); first !== undefined; d = dirname(d)) {
        folders.push(d);
        if (d === first || d === dirname(d)) break;
      }
    };
    for (const f of files) {
      makeFolders(f.target);
      let file: FileHandle;
      try {
        file = await created(f.target);
      } catch (e) {
        // A failed batch beside this one removed a folder it had made, between the two steps: again.
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        makeFolders(f.target);
        file = await created(f.target);
      }
      written.push(f.target);
      try {
        for (let left = f.size; left > 0;) {
          const piece = await body.next(left);
          if (!piece)
            throw new Refused({
              status: 400,
              words: `The upload ended before its files did: ${NOTHING_KEPT}.`,
            });
          left -= piece.length;
          bytes += piece.length;
          wrote(bytes);
          for (let at = 0; at < piece.length;) at += (await file.write(piece, at)).bytesWritten;
        }
      } finally {
        await file.close();
      }
    }
    if (await body.next(1))
      throw new Refused({
        status: 400,
        words: `The upload holds more bytes than its files: ${NOTHING_KEPT}.`,
      });
    return undefined;
  } catch (e) {
    for (const f of written) rmSync(f, { force: true });
    // Deepest first; a folder that another batch has put a file in meanwhile stays.
    for (const d of folders.sort((a, b) => b.length - a.length)) {
      try {
        rmdirSync(d);
      } catch {
        // Not empty: another batch's.
      }
    }
    const refusal = e instanceof Refused ? e.refusal : refusalFor(e);
    if (refusal) return refusal;
    throw e;
  }
}
