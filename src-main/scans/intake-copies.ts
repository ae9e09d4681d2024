import type { FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ScanProblem } from '../../src-shared/scans.js';
import type { DicomHeader } from './header-fields.js';
import { openScanFile } from './scan-file-open.js';
import { sameImage } from './same-image.js';
import { isLossy } from './series-summary.js';

/** Copies of an image in one drop, told apart from different images under one SOP Instance UID. */

/** Files of one group compared at once, at most (each comparison holds two files open). */
const COMPARISONS_AT_ONCE = 8;

/**
 * Sets aside the files whose SOP Instance UID an earlier file of the group has: copies of it when
 * they hold the same bytes (or are a cut-off copy of it), else a conflict. Two different images under
 * one UID cannot both be the slice: which one is, is not known, and neither is taken silently.
 * Only files with a UID met before are read, so a drop without copies costs nothing here.
 */
export async function setCopiesAside(
  headers: DicomHeader[],
): Promise<{ kept: DicomHeader[]; copies: number; conflicts: DicomHeader[][] }> {
  // Of two copies of one image, keep the complete one (a folder may hold a cut-off copy),
  // and of an image in two encodings, the one that lost no detail.
  const rank = (h: DicomHeader): number =>
    (h.pixelData?.missingBytes ?? 0) !== 0 ? 2 : isLossy(h.transferSyntaxUid) ? 1 : 0;
  if (headers.some((h) => rank(h) !== 0)) headers.sort((a, b) => rank(a) - rank(b));
  const firstWith = new Map<string, DicomHeader>();
  const kept: DicomHeader[] = [];
  const again: DicomHeader[] = [];
  for (let i = 0; i < headers.length; i++) {
    const h = headers[i]!;
    const uid = h.sopInstanceUid;
    if (uid && firstWith.has(uid)) again.push(h);
    else {
      if (uid) firstWith.set(uid, h);
      kept.push(h);
    }
  }
  if (again.length === 0) return { kept, copies: 0, conflicts: [] };
  const same: boolean[] = [];
  for (let i = 0; i < again.length; i += COMPARISONS_AT_ONCE) {
    const batch = again.slice(i, i + COMPARISONS_AT_ONCE);
    same.push(...(await Promise.all(batch.map((h) => sameContent(firstWith.get(h.sopInstanceUid)!, h)))));
  }
  let copies = 0;
  const conflicts = new Map<string, DicomHeader[]>();
  again.forEach((h, i) => {
    if (same[i]) {
      copies++;
      return;
    }
    const uid = h.sopInstanceUid;
    const group = conflicts.get(uid) ?? [firstWith.get(uid)!];
    group.push(h);
    conflicts.set(uid, group);
  });
  return { kept, copies, conflicts: [...conflicts.values()] };
}

const COMPARE_CHUNK = 1024 * 1024;

/**
 * Whether two files hold the same bytes, or the shorter one, cut off inside its image, holds the
 * start of the other's. False when either cannot be read: not shown to be a copy.
 */
async function sameContent(a: DicomHeader, b: DicomHeader): Promise<boolean> {
  // One image in another transfer syntax (converted by an archive or a viewer): its bytes differ,
  // its image must not (same-image.ts).
  if (a.transferSyntaxUid !== b.transferSyntaxUid) return sameImage(a, b);
  const [short, long] = a.fileSize <= b.fileSize ? [a, b] : [b, a];
  if (short.fileSize !== long.fileSize && (short.pixelData?.missingBytes ?? 0) === 0) return false;
  let fa: FileHandle | undefined;
  let fb: FileHandle | undefined;
  try {
    fa = await openScanFile(short.path);
    fb = await openScanFile(long.path);
    const x = Buffer.alloc(Math.min(COMPARE_CHUNK, short.fileSize));
    const y = Buffer.alloc(x.length);
    for (let at = 0; at < short.fileSize; at += x.length) {
      const want = Math.min(x.length, short.fileSize - at);
      const [n, m] = await Promise.all([readFully(fa, x, want, at), readFully(fb, y, want, at)]);
      if (n !== want || m !== want || x.compare(y, 0, want, 0, want) !== 0) return false;
    }
    return true;
  } catch {
    return false;
  } finally {
    await fa?.close().catch(() => undefined);
    await fb?.close().catch(() => undefined);
  }
}

/** Reads `length` bytes at `position` (fewer only at the end of the file); returns how many. */
async function readFully(file: FileHandle, into: Buffer, length: number, position: number): Promise<number> {
  let done = 0;
  while (done < length) {
    const { bytesRead } = await file.read(into, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}

/** The problem a series has for different images under one SOP Instance UID. */
export function sameUidProblem(files: string[]): ScanProblem {
  const names = files.slice(0, 3).map((f) => basename(f));
  const more = files.length > 3 ? ` and ${files.length - 3} more` : '';
  return {
    severity: 'error',
    code: 'duplicate-uid',
    message: `${files.length} different images carry the same instance UID: ${names.join(', ')}${more}. Only one of them can be this slice of the scan, and which one is not known; export the series again.`,
    file: files[0]!,
  };
}
