import { DicomParseError } from './dicom-file.js';
import { TAG } from './header-tags.js';
import type { DicomHeader } from './header-types.js';
import { num, type TagTable, text, UPPER, us } from './header-values.js';

// What a header says about its pixel data: how many bytes a frame takes, how many frames the file
// can hold, where they lie.

/** Bytes one uncompressed frame takes: YBR_FULL_422 stores two samples per pixel (Y Y Cb Cr per pair). */
export function uncompressedFrameBytes(
  h: Pick<DicomHeader, 'rows' | 'columns' | 'samplesPerPixel' | 'bitsAllocated' | 'photometric'>,
): number {
  const samples = h.photometric === 'YBR_FULL_422' && h.samplesPerPixel === 3 ? 2 : h.samplesPerPixel;
  return Math.ceil((h.rows * h.columns * samples * h.bitsAllocated) / 8);
}

/**
 * Frames one file may hold, whatever its header says: far beyond any scan (a CBCT has a few hundred
 * to two thousand slices), and small enough that the per-frame list costs little.
 */
export const MAX_FRAMES = 50_000;

/** The smallest encapsulated frame: an item tag and length (8 bytes) and at least one byte. */
const MIN_ENCAPSULATED_FRAME = 9;

/**
 * Number of Frames, checked against the bytes the file has before anything is allocated for it:
 * a header may claim 3,000,000 or 99,999,999,999 frames. Throws DicomParseError (in words) when the
 * claim cannot be true.
 */
export function boundedFrameCount(t: TagTable, fileSize: number): number {
  const claimed = Math.max(1, Math.round(num(t, TAG.numberOfFrames) ?? 1));
  // Without an image the count means nothing; do not build per-frame lists for it.
  if (t.pixelOffset < 0 || claimed === 1) return 1;
  const said = (n: number): string => n.toLocaleString('en-US');
  const tooMany = (room: number): DicomParseError =>
    new DicomParseError(
      `its header says it holds ${said(claimed)} images, but it has room for ${room === 1 ? 'only one' : `at most ${said(room)}`}`,
    );
  // Bytes from the start of the pixel data to the end of what there is (the file, or the inflated data set).
  const present =
    t.fileOffset === undefined ? t.bytes.length - t.pixelOffset : fileSize - t.fileOffset - t.pixelOffset;
  if (t.pixelEncapsulated) {
    // An offset-table item, then at least one fragment per frame.
    const room = Math.max(1, Math.floor((present - 8) / MIN_ENCAPSULATED_FRAME));
    if (claimed > room) throw tooMany(room);
  } else {
    const frameBytes = uncompressedFrameBytes({
      rows: us(t, TAG.rows) ?? 0,
      columns: us(t, TAG.columns) ?? 0,
      samplesPerPixel: us(t, TAG.samplesPerPixel) ?? 1,
      bitsAllocated: us(t, TAG.bitsAllocated) ?? 0,
      photometric: text(t, TAG.photometric, false, UPPER),
    });
    // A file cut off inside its pixels is told apart later (truncated-file): the declared length counts here.
    if (frameBytes > 0) {
      const room = Math.max(1, Math.ceil(t.pixelLength / frameBytes));
      if (claimed > room) throw tooMany(room);
    }
  }
  if (claimed > MAX_FRAMES) {
    throw new DicomParseError(
      `its header says it holds ${said(claimed)} images, more than the ${said(MAX_FRAMES)} scan2mesh reads from one file`,
    );
  }
  return claimed;
}

/** Where the pixel data lies, and how much of it the file lacks; undefined without pixel data. */
export function pixelDataOf(t: TagTable, fileSize: number): DicomHeader['pixelData'] {
  if (t.pixelOffset < 0) return undefined;
  const encapsulated = t.pixelEncapsulated;
  const end = t.fileOffset === undefined || encapsulated ? 0 : t.fileOffset + t.pixelOffset + t.pixelLength;
  return {
    offset: t.pixelOffset,
    length: t.pixelLength,
    encapsulated,
    missingBytes: Math.max(0, end - fileSize),
  };
}
