import { STAGE_MANIFEST_MAX_BYTES } from '../../src-shared/stage-batch';
import type { DroppedItem } from './dropped-item';

/** A request carries at most this many bytes of files (a larger file goes alone)... */
const BATCH_BYTES = 16 * 1024 ** 2;
/** ... and at most this many files: a drop of small files still goes in a few hundred requests. */
const BATCH_FILES = 256;
/** ... and a manifest of at most this many characters: a quarter of the server's cap in bytes (a character is 3 bytes at most). */
const BATCH_HEAD_CHARS = STAGE_MANIFEST_MAX_BYTES / 4;

/** A staged file: the dropped item and where it goes in the drop's folder. */
export interface ToStage {
  item: DroppedItem;
  path: string;
}

/** The longest file or folder name common disks take, in UTF-8 bytes. */
const MAX_NAME_BYTES = 255;
const utf8 = new TextEncoder();

/**
 * `name` numbered " (k)": before a file's extension ("scan (2).dcm"), after a folder's name ("CT (2)"),
 * its stem cut short where the whole would pass MAX_NAME_BYTES.
 */
function numbered(name: string, k: number, isFile: boolean): string {
  const dot = isFile ? name.lastIndexOf('.') : -1;
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  const tail = ` (${k})${ext}`;
  let cut = stem;
  while (cut.length > 0 && utf8.encode(cut + tail).length > MAX_NAME_BYTES) cut = cut.slice(0, -1);
  // Never half of a character written as two UTF-16 units.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return cut + tail;
}

/**
 * Where each item goes in the drop's folder: its path, except that a dropped thing whose name an
 * earlier one took (two folders "CT" from two places, two files "I1") goes under that name
 * numbered " (2)", " (3)". Copied under one name, one's files would overwrite the other's, or two
 * copies at once write into one file. Names are told apart without regard to case, as some disks do.
 */
export function stagePaths(items: readonly DroppedItem[]): ToStage[] {
  const stagedTop = new Map<string, string>();
  const taken = new Set<string>();
  return items.map((item) => {
    const path = item.relativePath || item.file.name;
    const cut = path.indexOf('/');
    const top = cut < 0 ? path : path.slice(0, cut);
    // Picked files come from one folder: their names alone tell them apart.
    const key = item.root === undefined ? `name:${top}` : `root:${item.root}:${top}`;
    let name = stagedTop.get(key);
    if (name === undefined) {
      name = top;
      for (let k = 2; taken.has(name.toLowerCase()); k++) name = numbered(top, k, cut < 0);
      taken.add(name.toLowerCase());
      stagedTop.set(key, name);
    }
    return { item, path: cut < 0 ? name : name + path.slice(cut) };
  });
}

export const topOf = (path: string): string => path.split('/')[0] ?? path;

/** The drop's files in batches, in order (src-shared/stage-batch.ts). */
export function batchesOf(files: readonly ToStage[]): ToStage[][] {
  const out: ToStage[][] = [];
  let batch: ToStage[] = [];
  let bytes = 0;
  let chars = 0;
  for (const f of files) {
    const entryChars = JSON.stringify({ path: f.path, size: f.item.file.size }).length + 1;
    const full =
      batch.length >= BATCH_FILES ||
      bytes + f.item.file.size > BATCH_BYTES ||
      chars + entryChars > BATCH_HEAD_CHARS;
    if (batch.length > 0 && full) {
      out.push(batch);
      batch = [];
      bytes = 0;
      chars = 0;
    }
    batch.push(f);
    bytes += f.item.file.size;
    chars += entryChars;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}
