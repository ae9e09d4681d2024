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

/** How many images, in words: "one image", "140 images". */
export const imagesWord = (n: number): string =>
  n === 1 ? 'one image' : `${n.toLocaleString('en-US')} images`;

/**
 * A header whose Number of Frames is not the number of images the file holds, in words: which of
 * them make up the scan cannot be known (a count too low silently dropped the rest of the skull).
 */
export function framesDisagree(claimed: number, what: string): DicomParseError {
  return new DicomParseError(
    `its header says it holds ${imagesWord(claimed)}, but ${what}: which images make up the scan is not known; export the series again`,
  );
}

/**
 * Number of Frames, checked against the bytes the file has before anything is allocated for it:
 * a header may claim 3,000,000 or 99,999,999,999 frames. Throws DicomParseError (in words) when the
 * claim cannot be true, or when the pixel data clearly holds more images than it says.
 */
export function boundedFrameCount(t: TagTable, fileSize: number): number {
  const stated = num(t, TAG.numberOfFrames);
  const claimed = stated ?? 1;
  // Without an image the count means nothing; do not build per-frame lists for it.
  if (t.pixelOffset < 0) return 1;
  // A count of images is a whole number from 1 up: "-2" and "0" were read as one image and "2.5" as
  // three, so which images make the scan was guessed.
  if (!(Number.isInteger(claimed) && claimed >= 1))
    throw new DicomParseError(
      `its header gives Number of Frames (0028,0008) as ${claimed}, which is no count of images: which images make up the scan cannot be known; export the series again`,
    );
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
    // The Basic Offset Table has one entry per frame when it is not empty. Fragments are no count:
    // a frame may span several of them.
    const listed = offsetTableEntries(t);
    if (listed !== undefined && listed !== claimed)
      throw framesDisagree(claimed, `its compressed image data lists ${said(listed)} (Basic Offset Table)`);
  } else {
    const bitsAllocated = us(t, TAG.bitsAllocated) ?? 0;
    const frameBytes = uncompressedFrameBytes({
      rows: us(t, TAG.rows) ?? 0,
      columns: us(t, TAG.columns) ?? 0,
      samplesPerPixel: us(t, TAG.samplesPerPixel) ?? 1,
      bitsAllocated,
      photometric: text(t, TAG.photometric, false, UPPER),
    });
    // A file cut off inside its pixels is told apart later (truncated-file): the declared length counts here.
    if (frameBytes > 0) {
      const room = Math.max(1, Math.ceil(t.pixelLength / frameBytes));
      if (claimed > room) throw tooMany(room);
      // Room for another whole image beyond the claimed ones, past the one byte that pads an odd
      // length: the header leaves images out (a count of 100 in a file of 140 lost 34 mm of skull).
      // Counted in what the file holds: a length that runs past the file's end is a file cut off (or
      // a length that lies), said as such later, not a count of 524,287 images.
      const held = Math.min(t.pixelLength, Math.max(0, present));
      if (held >= (claimed + 1) * frameBytes && held > claimed * frameBytes + 1)
        throw framesDisagree(
          claimed,
          // The size of a frame is the header's too: a wrong Bits Allocated makes the same count.
          `its image data holds ${said(Math.floor(held / frameBytes))} at the ${bitsAllocated} bit${bitsAllocated === 1 ? '' : 's'} per pixel it gives (Bits Allocated)`,
        );
    }
  }
  if (claimed > MAX_FRAMES) {
    throw new DicomParseError(
      `its header says it holds ${said(claimed)} images, more than the ${said(MAX_FRAMES)} scan2mesh reads from one file`,
    );
  }
  return claimed;
}

/**
 * The entries of an encapsulated pixel data's Basic Offset Table (the first item, 4 bytes per
 * frame); undefined when it is empty, or its item is not where it must be or not among the bytes
 * read (the header readers read past the pixel data element's header for it).
 */
function offsetTableEntries(t: TagTable): number | undefined {
  const at = t.pixelOffset;
  const b = t.bytes;
  if (at < 0 || at + 8 > b.length) return undefined;
  // Item tag (FFFE,E000), little endian as all encapsulated data is, then the item's length.
  if (b[at] !== 0xfe || b[at + 1] !== 0xff || b[at + 2] !== 0x00 || b[at + 3] !== 0xe0) return undefined;
  const length = b.readUInt32LE(at + 4);
  if (length === 0 || length % 4 !== 0 || length === 0xffffffff) return undefined;
  return length / 4;
}

/** Where the pixel data lies, and how much of it the file lacks; undefined without pixel data. */
export function pixelDataOf(t: TagTable, fileSize: number): DicomHeader['pixelData'] {
  if (t.pixelOffset < 0) return undefined;
  const encapsulated = t.pixelEncapsulated;
  let end = 0;
  if (t.fileOffset !== undefined)
    end = encapsulated ? firstFragmentEnd(t) : t.fileOffset + t.pixelOffset + t.pixelLength;
  // A deflated data set was inflated whole: what it lacks is told from the inflated bytes (a review's
  // damaged deflate stream was called fit, and the job then failed on it).
  else if (!encapsulated) end = t.pixelOffset + t.pixelLength;
  const present = t.fileOffset === undefined ? t.bytes.length : fileSize;
  return {
    offset: t.pixelOffset,
    length: t.pixelLength,
    encapsulated,
    missingBytes: Math.max(0, end - present),
  };
}

const isItem = (b: Buffer, at: number): boolean =>
  b[at] === 0xfe && b[at + 1] === 0xff && b[at + 2] === 0x00 && b[at + 3] === 0xe0;

/**
 * Where in the file the first fragment of compressed image data ends, when the bytes read hold its
 * item header (after the offset table's); 0 when they do not. A fragment that ends past the file is
 * a file cut off, or a length that lies (0x7FFFFFF0 in a review's case): found here, the file is
 * refused when it is looked at, not when the job decodes it.
 */
function firstFragmentEnd(t: TagTable): number {
  const b = t.bytes;
  const at = t.pixelOffset;
  if (at + 8 > b.length || !isItem(b, at)) return 0;
  const table = b.readUInt32LE(at + 4);
  const first = at + 8 + table;
  if (table === 0xffffffff || first + 8 > b.length || !isItem(b, first)) return 0;
  return (t.fileOffset ?? 0) + first + 8 + b.readUInt32LE(first + 4);
}
