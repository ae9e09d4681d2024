import type { FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ScanProblem } from '../../src-shared/scans.js';
import { uncompressedFrameBytes, type DicomHeader } from './header-fields.js';
import { openScanFile } from './scan-file-open.js';
import { tagWords } from './tag-words.js';
import { transferSyntax } from './transfer-syntax.js';

// What the files of a series say of their image data, checked before anything is made of it: its
// length against the image's size, its form against the transfer syntax, and what follows it.

/** The image data's element, little endian: (7FE0,0010). */
const PIXEL_DATA_TAG = 0x7fe00010;

/**
 * The problems of a series' files with their image data: errors for damage, one warning for excess
 * padding (PS3.5 8.1.1 lets older writers pad the image data, and readers take the image from its
 * start, as pydicom does; a reviewer's files were refused for it).
 */
export async function pixelDataProblems(
  headers: DicomHeader[],
  display: (path: string) => string,
): Promise<ScanProblem[]> {
  const problems: ScanProblem[] = [];
  const padded: DicomHeader[] = [];
  for (let i = 0; i < headers.length; i++) {
    const h = headers[i]!;
    const px = h.pixelData;
    if (!px) continue;
    const name = basename(display(h.path));
    const file = display(h.path);
    const ts = transferSyntax(h.transferSyntaxUid);
    const needed = uncompressedFrameBytes(h) * h.numberOfFrames;
    if (!px.encapsulated && px.missingBytes === 0 && px.length < needed) {
      problems.push({
        severity: 'error',
        code: 'corrupt-file',
        message: `${name} holds less image data than its size says (${px.length} of ${needed} bytes): it is damaged.`,
        file,
      });
    }
    if (!px.encapsulated && needed > 0 && px.length > needed + 1) padded.push(h);
    if (!px.encapsulated && ts.compressed) {
      // Read as plain pixels, a codestream's text (a JPEG comment, a date) went out de-identified.
      problems.push({
        severity: 'error',
        code: 'corrupt-file',
        message: `${name} says its pixels are compressed (${ts.name}) but stores its image data as one plain value, as only uncompressed images are stored: it is damaged.`,
        file,
      });
    }
    if (px.encapsulated && !ts.compressed) {
      problems.push({
        severity: 'error',
        code: 'corrupt-file',
        message: `${name} gives its image data an undefined length, as only compressed images have, but says its pixels are not compressed (${ts.name}): it is damaged.`,
        file,
      });
    }
    if (px.missingBytes > 0) {
      problems.push({
        severity: 'error',
        code: 'truncated-file',
        message: `${name} is incomplete: it ends ${px.missingBytes} bytes before its image does (the copy was cut off).`,
        file,
      });
    }
    const again = await elementAfterImage(h);
    if (again) {
      problems.push({
        severity: 'error',
        code: 'corrupt-file',
        message: `${name} holds the element ${again} after its image data, out of the order DICOM keeps them in${again === '(7FE0,0010)' ? ' (a second image)' : ''}: which values hold cannot be known, so it is damaged.`,
        file,
      });
    }
  }
  if (padded.length > 0) {
    const n = padded.length;
    problems.push({
      severity: 'warning',
      code: 'pixel-data-padding',
      message: `${n === 1 ? `${basename(display(padded[0]!.path))} holds` : `${n} files hold`} more image data than the image's size; the image is read from the start, the rest taken for padding, as DICOM allows for files of older writers. If the model looks shifted, export the scan again.`,
      file: display(padded[0]!.path),
    });
  }
  return problems;
}

/** Explicit-VR VRs with a 4-byte length (PS3.5 7.1.2). */
const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV']);
/** Elements after the image looked at, at most: trailing padding and a signature are one or two. */
const MAX_AFTER = 64;

/**
 * The tag of an element that follows uncompressed image data while it should come before it (a second
 * Pixel Data, a second Rescale Intercept): the header is read up to the image only, so the elements
 * after it are stepped over here, reading their headers, for the files that go on past their image (a
 * review: the model was made of the first image, pydicom reads the second, also behind a private
 * element or padding). Undefined when only elements that may follow the image (padding, signatures,
 * private groups) are there, or when one of undefined length ends the look.
 */
async function elementAfterImage(h: DicomHeader): Promise<string | undefined> {
  const px = h.pixelData;
  const ts = transferSyntax(h.transferSyntaxUid);
  if (!px || px.encapsulated || px.missingBytes > 0 || ts.deflated) return undefined;
  let pos = px.offset + px.length + (px.length % 2);
  if (h.fileSize < pos + 8) return undefined;
  let file: FileHandle | undefined;
  try {
    file = await openScanFile(h.path);
    const b = Buffer.alloc(12);
    const u16 = (at: number): number => (ts.littleEndian ? b.readUInt16LE(at) : b.readUInt16BE(at));
    const u32 = (at: number): number => (ts.littleEndian ? b.readUInt32LE(at) : b.readUInt32BE(at));
    // The element before the image data must be where the header says: else its offset is no file
    // position (a data set that was inflated), and nothing is read.
    const lead = await file.read(b, 0, 4, px.offset - (ts.explicitVr ? 12 : 8));
    if (lead.bytesRead < 4 || u16(0) * 0x10000 + u16(2) !== PIXEL_DATA_TAG) return undefined;
    for (let hop = 0; hop < MAX_AFTER && pos + 8 <= h.fileSize; hop++) {
      const { bytesRead } = await file.read(b, 0, 12, pos);
      if (bytesRead < 8) return undefined;
      const tag = u16(0) * 0x10000 + u16(2);
      // Zero bytes to the end of the file: padding a writer left, no element (pydicom reads such files).
      if (tag === 0 && (await zerosToEnd(file, pos, h.fileSize))) return undefined;
      if (tag <= PIXEL_DATA_TAG) return tagWords(tag);
      const vr = b.toString('latin1', 4, 6);
      const long = ts.explicitVr && LONG_VRS.has(vr);
      if (long && bytesRead < 12) return undefined;
      const length = !ts.explicitVr || long ? u32(long ? 8 : 4) : u16(6);
      if (length === 0xffffffff) return undefined;
      pos += (long ? 12 : 8) + length;
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    await file?.close().catch(() => undefined);
  }
}

/** Trailing zeros looked at, at most: more than this is not padding any writer leaves. */
const MAX_ZERO_TAIL = 1 << 20;

/** Whether the file holds only zero bytes from `from` to its end, within MAX_ZERO_TAIL. */
async function zerosToEnd(file: FileHandle, from: number, size: number): Promise<boolean> {
  if (size - from > MAX_ZERO_TAIL) return false;
  const tail = Buffer.alloc(size - from);
  const { bytesRead } = await file.read(tail, 0, tail.length, from);
  return bytesRead === tail.length && tail.every((b) => b === 0);
}
