import type { FileHandle } from 'node:fs/promises';
import type { DicomHeader } from './header-fields.js';

/** Items looked at in one file, at most: one per frame and the offset table, with room to spare. */
const MAX_ITEMS = 100_000;

/**
 * The [offset, length] of every item of a file's encapsulated image data (the offset table first),
 * up to its sequence delimiter, read by their 8-byte headers alone (little endian); undefined when
 * they cannot be walked to the delimiter within the file.
 */
export async function fragmentItems(
  file: FileHandle,
  h: DicomHeader,
): Promise<[number, number][] | undefined> {
  const b = Buffer.alloc(8);
  let pos = h.pixelData!.offset;
  const out: [number, number][] = [];
  for (let i = 0; i < MAX_ITEMS && pos + 8 <= h.fileSize; i++) {
    const { bytesRead } = await file.read(b, 0, 8, pos);
    if (bytesRead < 8 || b.readUInt16LE(0) !== 0xfffe) return undefined;
    const element = b.readUInt16LE(2);
    if (element === 0xe0dd) return out;
    const length = b.readUInt32LE(4);
    if (element !== 0xe000 || length === 0xffffffff || pos + 8 + length > h.fileSize) return undefined;
    out.push([pos + 8, length]);
    pos += 8 + length;
  }
  return undefined;
}
