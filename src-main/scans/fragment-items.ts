import type { FileHandle } from 'node:fs/promises';
import type { DicomHeader } from './header-fields.js';

/**
 * Bytes of a file read at a time while walking item headers: thousands of small items per read. A
 * walk of one read per item (and a cap of 100,000 items) left a slice of a million empty fragments
 * unjudged here (a review: only the job refused it); now the walk is bounded by the file's size alone
 * (an item takes 8 bytes at least), at one read per 64 KiB of small items or per large one.
 */
const WINDOW = 64 * 1024;

/** What a file's encapsulated image data holds, by its items' headers. */
export interface FragmentWalk {
  /** Bytes of every item (the offset table's too). */
  all: number;
  /** Bytes of the fragments alone (the items after the offset table). */
  image: number;
  /** The fragments' [offset, length], when there are at most the number asked for. */
  listed?: [number, number][];
}

/**
 * Walks the items of a file's encapsulated image data (the offset table first) up to its sequence
 * delimiter, by their 8-byte headers alone (little endian), listing the fragments when there are at
 * most `list`; undefined when they cannot be walked to the delimiter within the file.
 */
export async function walkFragments(
  file: FileHandle,
  h: DicomHeader,
  list = 0,
): Promise<FragmentWalk | undefined> {
  const window = Buffer.allocUnsafe(Math.min(WINDOW, Math.max(8, h.fileSize)));
  let at = 0;
  let held = 0;
  let pos = h.pixelData!.offset;
  let all = 0;
  let image = 0;
  let items = 0;
  const listed: [number, number][] = [];
  while (pos + 8 <= h.fileSize) {
    if (pos < at || pos + 8 > at + held) {
      ({ bytesRead: held } = await file.read(window, 0, Math.min(window.length, h.fileSize - pos), pos));
      at = pos;
      if (held < 8) return undefined;
    }
    const o = pos - at;
    if (window.readUInt16LE(o) !== 0xfffe) return undefined;
    const element = window.readUInt16LE(o + 2);
    if (element === 0xe0dd) return { all, image, ...(items - 1 <= list ? { listed } : {}) };
    const length = window.readUInt32LE(o + 4);
    if (element !== 0xe000 || length === 0xffffffff || pos + 8 + length > h.fileSize) return undefined;
    all += length;
    if (items > 0) {
      image += length;
      if (listed.length <= list) listed.push([pos + 8, length]);
    }
    items++;
    pos += 8 + length;
  }
  return undefined;
}
