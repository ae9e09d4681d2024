import type { FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ScanProblem } from '../../src-shared/scans.js';
import type { DicomHeader } from './header-fields.js';
import { jpegLsNear } from './codestream-size.js';
import { walkFragments } from './fragment-items.js';
import { j2kStructureProblem, type J2kExpect } from './j2k-codestream.js';
import { rleHeaderProblem } from './rle.js';
import { openScanFile } from './scan-file-open.js';
import { RLE_LOSSLESS, transferSyntax } from './transfer-syntax.js';

// What the codestreams of compressed frames say that their DICOM header does not. JPEG 2000 frames
// whose structure does not fit their header decode without an error into wrong images (j2k-codestream.ts). A job refuses them when it decodes; looked at here, before a job, so
// inspect does not call such a series fit. It costs a few small reads per frame: the main header,
// then each tile-part's 12-byte SOT segment, read through a window of a few kilobytes.

const JPEG_2000 = new Set(['1.2.840.10008.1.2.4.90', '1.2.840.10008.1.2.4.91']);
const JPEG_LS_LOSSLESS = '1.2.840.10008.1.2.4.80';
/** Bytes of a JPEG-LS frame read for its scan header: its markers before the scan take a few dozen. */
const JPEG_LS_HEAD = 1024;
/** Bytes read at once: a main header and the tile-part headers of small tiles in one read. */
const WINDOW = 8192;
/** Files named in the message, at most. */
const NAMED = 3;

/** One error for the files of a series whose JPEG 2000 frames would decode to wrong images, or null. */
export async function j2kStructureProblems(
  headers: DicomHeader[],
  display: (path: string) => string,
): Promise<ScanProblem | null> {
  const bad: { h: DicomHeader; why: string }[] = [];
  for (const h of headers) {
    if (!h.pixelData?.encapsulated || !JPEG_2000.has(h.transferSyntaxUid)) continue;
    const why = await fileProblem(h);
    if (why) bad.push({ h, why });
  }
  if (bad.length === 0) return null;
  const first = bad[0]!;
  const which = whichFiles(bad, display);
  return {
    severity: 'error',
    code: 'corrupt-file',
    message: `The JPEG 2000 image data of ${which} is damaged: ${first.why}, so it would decode to a wrong image. Export the scan again from the scanner or PACS.`,
    file: display(first.h.path),
  };
}

/** Why a file's frames cannot be trusted, for the first frame that cannot; undefined otherwise. */
function fileProblem(h: DicomHeader): Promise<string | undefined> {
  const expect: J2kExpect = {
    samplesPerPixel: h.samplesPerPixel,
    bitsStored: h.bitsStored,
    bitsAllocated: h.bitsAllocated,
  };
  return firstFrameProblem(h, (file, fragment) => frameProblem(file, fragment, expect));
}

/**
 * The first problem `check` finds in a file's frames, as "image k: ..." in a multi-frame file;
 * undefined when there is none, or when the frames are not one fragment each (a job checks every
 * frame as it decodes; RLE stores each frame in one fragment, PS3.5 A.4.2), or the file cannot be
 * read here (the other checks judge it).
 */
async function firstFrameProblem(
  h: DicomHeader,
  check: (file: FileHandle, fragment: [number, number]) => Promise<string | undefined>,
): Promise<string | undefined> {
  const ts = transferSyntax(h.transferSyntaxUid);
  if (ts.deflated || !ts.littleEndian) return undefined;
  let file: FileHandle | undefined;
  try {
    file = await openScanFile(h.path);
    const fragments = await fragmentsOf(file, h);
    if (!fragments || fragments.length !== Math.max(1, h.numberOfFrames)) return undefined;
    for (let k = 0; k < fragments.length; k++) {
      const why = await check(file, fragments[k]!);
      if (why) return fragments.length > 1 ? `image ${k + 1}: ${why}` : why;
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    await file?.close().catch(() => undefined);
  }
}

/** The files named in a series' message: one by name, more by count and the first few names. */
function whichFiles(bad: { h: DicomHeader }[], display: (path: string) => string): string {
  const names = bad.slice(0, NAMED).map((b) => basename(display(b.h.path)));
  const more = bad.length > NAMED ? ` and ${bad.length - NAMED} more` : '';
  return bad.length === 1 ? names[0]! : `${bad.length} files (${names.join(', ')}${more})`;
}

/** The [offset, length] of each fragment after the offset table, or undefined when they cannot be walked. */
async function fragmentsOf(file: FileHandle, h: DicomHeader): Promise<[number, number][] | undefined> {
  return (await walkFragments(file, h, Math.max(1, h.numberOfFrames)))?.listed;
}

async function frameProblem(
  file: FileHandle,
  [offset, length]: [number, number],
  expect: J2kExpect,
): Promise<string | undefined> {
  let windowAt = -1;
  let window = Buffer.alloc(0);
  const read = async (at: number, n: number): Promise<Uint8Array> => {
    const end = Math.min(at + n, length);
    if (at < windowAt || end > windowAt + window.length) {
      const size = Math.min(Math.max(WINDOW, end - at), length - at);
      window = Buffer.alloc(Math.max(0, size));
      const { bytesRead } = await file.read(window, 0, window.length, offset + at);
      window = window.subarray(0, bytesRead);
      windowAt = at;
    }
    return window.subarray(at - windowAt, end - windowAt);
  };
  // Padding after the end marker (fragments are of even length) is not part of the tile-parts.
  const tail = await read(Math.max(0, length - 4), 4);
  let trimmed = length;
  for (let i = tail.length - 1; i >= 0 && tail[i] === 0 && trimmed > 2; i--) trimmed--;
  const check = j2kStructureProblem(trimmed, expect);
  let step = check.next(new Uint8Array(0));
  while (!step.done)
    step = check.next(await read(step.value.at, Math.min(step.value.n, trimmed - step.value.at)));
  return step.value;
}

/**
 * A warning for the files of a series labelled JPEG-LS Lossless whose codestream was compressed
 * near-lossless (NEAR above 0), or null: such a series was meshed as lossless (a review). Its values
 * may each be off by up to NEAR, as lossy data is; said as the lossy encodings are (a warning).
 */
export async function jpegLsNearProblem(
  headers: DicomHeader[],
  display: (path: string) => string,
): Promise<ScanProblem | null> {
  const lossy: { h: DicomHeader; near: number }[] = [];
  for (const h of headers) {
    if (!h.pixelData?.encapsulated || h.transferSyntaxUid !== JPEG_LS_LOSSLESS) continue;
    const near = await firstFrameNear(h);
    if (near !== undefined && near > 0) lossy.push({ h, near });
  }
  if (lossy.length === 0) return null;
  const first = lossy[0]!;
  const name = basename(display(first.h.path));
  const which = lossy.length === 1 ? name : `${lossy.length} files (${name} and others)`;
  return {
    severity: 'warning',
    code: 'lossy-compression',
    message: `The images of ${which} are labelled JPEG-LS Lossless but were compressed near-lossless (NEAR ${first.near}: each value may differ by up to ${first.near} from the scan's), which loses detail; fine structures such as root canals may be less accurate. For an exact model, export the scan again without loss.`,
    file: display(first.h.path),
  };
}

/** NEAR of a file's first frame, read from the start of its first fragment. */
async function firstFrameNear(h: DicomHeader): Promise<number | undefined> {
  const ts = transferSyntax(h.transferSyntaxUid);
  if (ts.deflated || !ts.littleEndian) return undefined;
  let file: FileHandle | undefined;
  try {
    file = await openScanFile(h.path);
    const [offset, length] = (await fragmentsOf(file, h))?.[0] ?? [0, 0];
    if (length === 0) return undefined;
    const b = Buffer.alloc(Math.min(length, JPEG_LS_HEAD));
    const { bytesRead } = await file.read(b, 0, b.length, offset);
    return jpegLsNear(b.subarray(0, bytesRead));
  } catch {
    return undefined;
  } finally {
    await file?.close().catch(() => undefined);
  }
}

/**
 * One error for the files of a series whose RLE frames cannot be decoded, by their 64-byte headers
 * (segment count, offsets), or null: inspect called them fit and only a job refused them (a review).
 */
export async function rleHeaderProblems(
  headers: DicomHeader[],
  display: (path: string) => string,
): Promise<ScanProblem | null> {
  const bad: { h: DicomHeader; why: string }[] = [];
  for (const h of headers) {
    if (!h.pixelData?.encapsulated || h.transferSyntaxUid !== RLE_LOSSLESS || h.samplesPerPixel !== 1)
      continue;
    const why = await rleFileProblem(h);
    if (why) bad.push({ h, why });
  }
  if (bad.length === 0) return null;
  const which = whichFiles(bad, display);
  return {
    severity: 'error',
    code: 'corrupt-file',
    message: `The RLE image data of ${which} cannot be decoded: ${bad[0]!.why}. The files are damaged; export the scan again from the scanner or PACS.`,
    file: display(bad[0]!.h.path),
  };
}

/** Why a file's RLE frames cannot be decoded, for the first frame that cannot; undefined otherwise. */
function rleFileProblem(h: DicomHeader): Promise<string | undefined> {
  const header = Buffer.alloc(64);
  return firstFrameProblem(h, async (file, [offset, length]) => {
    const { bytesRead } = await file.read(header, 0, Math.min(64, length), offset);
    return rleHeaderProblem(header.subarray(0, bytesRead), length, h.bitsAllocated / 8, h.rows * h.columns);
  });
}
