import type { FileHandle } from 'node:fs/promises';
import type { ScanProblem } from '../../src-shared/scans.js';
import { formatBytes } from '../../src-shared/format-bytes.js';
import { uncompressedFrameBytes, type DicomHeader } from './header-fields.js';
import { fragmentItems } from './fragment-items.js';
import { openScanFile } from './scan-file-open.js';
import { transferSyntax } from './transfer-syntax.js';

/**
 * Most times the bytes of its compressed image data that a series may hold in pixels. Lossless CT
 * compresses 2-4 times, lossy a few tens of times, blank end slices far more, but not a whole series:
 * 61 files of 257 bytes of valid JPEG 2000 each claimed 4900 x 4900 pixels, were called fit, and took
 * the local engine 45 s and 3.3 GB to read as blank (a review).
 */
const MAX_SERIES_COMPRESSION = 500;

/**
 * The error for a series whose compressed images claim far more pixels than their compressed data
 * holds, or null. Counted over every file whose images are compressed, whatever the first file's
 * encoding (an uncompressed first slice passed a first version), and over the bytes of the image
 * data's fragments alone: a large private element before the image, or trailing padding after it,
 * passed versions that counted the file or its end (reviews). One image alone is not judged: a
 * lossy one may compress more, and it is no scan anyway.
 */
export async function compressedTooFar(headers: DicomHeader[]): Promise<ScanProblem | null> {
  // A deflated data set is compressed too, pixels and all: 44 files of 90 KB each inflated to 67 MB
  // of pixels, were called fit, and took the engine 3.5 GB (a review). Its bytes are the file's.
  const deflated = (h: DicomHeader): boolean => transferSyntax(h.transferSyntaxUid).deflated === true;
  const compressed = headers.filter((h) => h.pixelData?.encapsulated || deflated(h));
  if (compressed.reduce((n, h) => n + Math.max(1, h.numberOfFrames), 0) < 2) return null;
  let claimed = 0;
  let stored = 0;
  for (const h of compressed) {
    claimed += uncompressedFrameBytes(h) * Math.max(1, h.numberOfFrames);
    stored += Math.max(1, deflated(h) ? h.fileSize : await fragmentBytes(h));
  }
  if (claimed <= MAX_SERIES_COMPRESSION * stored) return null;
  return {
    severity: 'error',
    code: 'corrupt-file',
    message: `The compressed images of this series claim ${formatBytes(claimed)} of pixels in ${formatBytes(stored)} of compressed data, ${Math.round(claimed / stored)} times more; no scan compresses so far (a blank or damaged series, or a crafted one), so it is not read.`,
  };
}

/**
 * The bytes of a file's image data fragments: the items of its encapsulated Pixel Data, up to their
 * sequence delimiter, read by their headers alone. Where they cannot be walked, the bytes from the
 * image data to the file's end.
 */
async function fragmentBytes(h: DicomHeader): Promise<number> {
  const px = h.pixelData!;
  const rest = h.fileSize - px.offset;
  const ts = transferSyntax(h.transferSyntaxUid);
  if (ts.deflated || !ts.littleEndian) return rest;
  let file: FileHandle | undefined;
  try {
    file = await openScanFile(h.path);
    const items = await fragmentItems(file, h);
    if (items) return items.reduce((sum, [, length]) => sum + length, 0);
    return rest;
  } catch {
    return rest;
  } finally {
    await file?.close().catch(() => undefined);
  }
}
