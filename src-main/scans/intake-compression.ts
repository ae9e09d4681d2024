import type { FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ScanProblem } from '../../src-shared/scans.js';
import { formatBytes } from '../../src-shared/format-bytes.js';
import { uncompressedFrameBytes, type DicomHeader } from './header-fields.js';
import { walkFragments } from './fragment-items.js';
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
 * The errors of a series' compressed image data: files whose images hold no bytes at all, and a
 * series whose compressed images claim far more pixels than their compressed data holds. The ratio
 * is counted over every file whose images are compressed, whatever the first file's encoding (an
 * uncompressed first slice passed a first version), and over the bytes of the image data's fragments
 * alone: a large private element before the image, or trailing padding after it, passed versions
 * that counted the file or its end (reviews). One image alone is not judged by its ratio: a lossy one
 * may compress more, and it is no scan anyway.
 */
export async function compressedDataProblems(
  headers: DicomHeader[],
  display: (path: string) => string,
): Promise<ScanProblem[]> {
  // A deflated data set is compressed too, pixels and all: 44 files of 90 KB each inflated to 67 MB
  // of pixels, were called fit, and took the engine 3.5 GB (a review). Its bytes are the file's.
  const deflated = (h: DicomHeader): boolean => transferSyntax(h.transferSyntaxUid).deflated === true;
  const compressed = headers.filter((h) => h.pixelData?.encapsulated || deflated(h));
  let claimed = 0;
  let stored = 0;
  const empty: DicomHeader[] = [];
  for (const h of compressed) {
    claimed += uncompressedFrameBytes(h) * Math.max(1, h.numberOfFrames);
    const walked = deflated(h) ? undefined : await fragmentBytes(h);
    if (walked?.image === 0) empty.push(h);
    stored += Math.max(1, walked ? walked.all : h.fileSize);
  }
  const problems: ScanProblem[] = [];
  if (empty.length > 0) {
    // An image with no bytes of its own: pydicom cannot read it, and a service would get a hole.
    const name = basename(display(empty[0]!.path));
    problems.push({
      severity: 'error',
      code: 'corrupt-file',
      message: `${empty.length === 1 ? `${name} holds no image data: its` : `${empty.length} files (${name} and others) hold no image data: their`} compressed image data has no fragments, or only empty ones. ${empty.length === 1 ? 'The file is' : 'The files are'} damaged; export the scan again from the scanner or PACS.`,
      file: display(empty[0]!.path),
    });
  }
  if (compressed.reduce((n, h) => n + Math.max(1, h.numberOfFrames), 0) < 2) return problems;
  if (claimed <= MAX_SERIES_COMPRESSION * stored) return problems;
  problems.push({
    severity: 'error',
    code: 'corrupt-file',
    message: `The compressed images of this series claim ${formatBytes(claimed)} of pixels in ${formatBytes(stored)} of compressed data, ${Math.round(claimed / stored)} times more; no scan compresses so far (a blank or damaged series, or a crafted one), so it is not read.`,
  });
  return problems;
}

/**
 * The bytes of a file's image data items (`all`, its offset table too) and of its fragments alone
 * (`image`): the items of its encapsulated Pixel Data, up to their sequence delimiter, read by their
 * headers alone. Where they cannot be walked, the bytes from the image data to the file's end, and
 * no `image`.
 */
async function fragmentBytes(h: DicomHeader): Promise<{ all: number; image?: number }> {
  const px = h.pixelData!;
  const rest = { all: h.fileSize - px.offset };
  const ts = transferSyntax(h.transferSyntaxUid);
  if (ts.deflated || !ts.littleEndian) return rest;
  let file: FileHandle | undefined;
  try {
    file = await openScanFile(h.path);
    const walked = await walkFragments(file, h);
    return walked ? { all: walked.all, image: walked.image } : rest;
  } catch {
    return rest;
  } finally {
    await file?.close().catch(() => undefined);
  }
}
