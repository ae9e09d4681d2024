// RLE frames whose 64-byte header cannot be decoded (a segment count unlike the sample's bytes,
// offsets out of the frame or out of order) were called fit by inspect, and only a job refused them
// (a review). Each case changes the real RLE MR fixture's frame header in one place.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectedOne } from './intake-one.test-support.js';
import { FIXTURES, tempFolders } from './scans.test-support.js';
import { readVolume } from './volume-reader.js';

const { fresh } = tempFolders('s2m-rle-header-');
/** One 16-bit frame in one fragment: two segments, the first at offset 64. */
const MR = join(FIXTURES, 'transfer-syntax', 'mr-ts-rle.dcm');

/** A copy of the MR with its RLE header (the first 64 bytes of its frame) changed by `edit`. */
function mrWith(name: string, edit: (header: Buffer) => void): string {
  const bytes = Buffer.from(readFileSync(MR));
  // The frame's fragment: the item after the (empty) offset table, whose header starts 2, 64, ...
  const at = bytes.indexOf(Buffer.from([2, 0, 0, 0, 64, 0, 0, 0]));
  edit(bytes.subarray(at, at + 64));
  const out = join(fresh(name), `${name}.dcm`);
  writeFileSync(out, bytes);
  return out;
}

const inspected = (file: string): ReturnType<typeof inspectedOne> => inspectedOne(file, fresh('work'));

describe('an RLE frame whose header cannot be decoded', () => {
  const cases: [string, (h: Buffer) => void, string][] = [
    [
      'segments15',
      (h) => h.writeUInt32LE(15, 0),
      'its RLE frame has 15 segments where 2 (one per byte of a sample) are expected',
    ],
    [
      'offsetFar',
      (h) => h.writeUInt32LE(0x7ffffff0, 8),
      'its RLE segment offsets point outside the frame or out of order',
    ],
    [
      'offsetsSwapped',
      (h) => {
        const [a, b] = [h.readUInt32LE(4), h.readUInt32LE(8)];
        h.writeUInt32LE(b, 4);
        h.writeUInt32LE(a, 8);
      },
      'its RLE segment offsets point outside the frame or out of order',
    ],
  ];
  for (const [name, edit, why] of cases) {
    it(`is called unfit by inspect, before a job (${name}), and refused by a job`, async () => {
      const file = mrWith(name, edit);
      const seen = await inspected(file);
      expect(seen.usable).toBe(false);
      expect(seen.errors).toContain(
        `The RLE image data of ${name}.dcm cannot be decoded: ${why}. The files are damaged; export the scan again from the scanner or PACS.`,
      );
      await expect(readVolume([file])).rejects.toThrow(/cannot be decoded/);
      // The untouched fixture has no such error.
      expect((await inspected(MR)).errors.filter((m) => m.includes('RLE'))).toEqual([]);
    });
  }
});
