import type { FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import type { DataSet } from 'dicom-parser';
import { AppError } from '../../src-shared/errors.js';
import type { ScanProblem } from '../../src-shared/scans.js';
import { dicomParserLib } from './dicom-parser-lib.js';
import { openScanFile } from './scan-file-open.js';
import { boundedInflater } from './dicom-parse.js';
import { withParserBudget } from './dicom-parser-lib.js';
import { withDropBudget } from './drop-parse-budget.js';

/** Damaged files of a drop said with the series they belong to, when their header still says which. */

/** A file of the drop too damaged to read as an image, with what its problem says. */
export interface DamagedFile {
  /** Where its bytes are; none for a zip entry of which nothing could be unpacked. */
  path?: string;
  display: string;
  message: string;
}

/**
 * Damaged files looked at again to find their series, at most: each costs a read of its first bytes,
 * here on the app's thread (asynchronously). Past this many, a drop is mostly damage, and the
 * further files are listed for the drop only.
 */
const MAX_DAMAGED_LOOKED_AT = 256;
/** How much of a damaged file is read to find its series: a CT header is a few kilobytes. */
const SERIES_UID_BYTES = 64 * 1024;

/** Damaged files by the series they name, and those that name none. */
export interface DamagedFiles {
  bySeries: Map<string, DamagedFile[]>;
  /**
   * Files whose series cannot be told (cut off before it, or never unpacked): said by every series
   * beside them (seriesBeside). A slice cut off in its first bytes was left out of its series in
   * silence, and a model made without it (a review: the lowest 1.5 mm of a head gone).
   */
  unattributed: DamagedFile[];
}

/**
 * The damaged files whose first bytes still state their Series Instance UID whole, by that UID.
 * A damaged file of a series is a slice the series lacks: the series must say so, not only the drop
 * (else a model is made of the rest, the gap filled in from its neighbours). The classification
 * (classify-file.ts) keeps nothing of a file it cannot read; so the UID is read again here, for
 * damaged files only.
 */
export async function damagedFilesBySeries(
  damaged: DamagedFile[],
  signal: AbortSignal | undefined,
  /** The drop's budget for what its files cost to read whole (drop-parse-budget.ts). */
  budget: Int32Array | null = null,
): Promise<DamagedFiles> {
  const bySeries = new Map<string, DamagedFile[]>();
  // Past MAX_DAMAGED_LOOKED_AT, not looked at: which series they are of is not known either.
  const unattributed = damaged.slice(MAX_DAMAGED_LOOKED_AT);
  for (const d of damaged.slice(0, MAX_DAMAGED_LOOKED_AT)) {
    if (signal?.aborted) throw new AppError('canceled', 'Looking at the scan was canceled.');
    const uid = d.path === undefined ? undefined : await seriesUidOfDamaged(d.path, budget);
    if (!uid) {
      unattributed.push(d);
      continue;
    }
    const list = bySeries.get(uid);
    if (list) list.push(d);
    else bySeries.set(uid, [d]);
  }
  return { bySeries, unattributed };
}

/** The folder a file is shown in: a zip entry's is inside its archive. */
const shownFolder = (display: string): string =>
  display.slice(0, Math.max(0, display.lastIndexOf('/'), display.lastIndexOf('\\')));

/**
 * The damaged files that name no series and lie in a folder that holds a file of this series (as
 * the user sees them: a zip entry's folder is inside its archive): they may be its slices.
 */
export function damagedBeside(unattributed: DamagedFile[], seriesFiles: string[]): DamagedFile[] {
  if (unattributed.length === 0) return [];
  const folders = new Set(seriesFiles.map(shownFolder));
  return unattributed.filter((d) => folders.has(shownFolder(d.display)));
}

/** The Series Instance UID in what a parser reads of a file before its damage, when stated whole. */
async function seriesUidOfDamaged(path: string, budget: Int32Array | null): Promise<string | undefined> {
  const bytes = await firstBytes(path, SERIES_UID_BYTES);
  if (!bytes) return undefined;
  let ds: DataSet | undefined;
  try {
    // A deflated data set inflates within the file's and the drop's bounds, as when it was classified:
    // dicom-parser's own inflater has none (a review's damaged files each took a second here).
    ds = withDropBudget(budget, () =>
      withParserBudget(() =>
        dicomParserLib().parseDicom(bytes, { untilTag: 'x7fe00010', inflater: boundedInflater }),
      ),
    );
  } catch (e) {
    // dicom-parser throws { exception, dataSet } with the elements it read before the damage.
    ds =
      typeof e === 'object' && e !== null && 'dataSet' in e
        ? (e as { dataSet?: DataSet }).dataSet
        : undefined;
  }
  const el = ds?.elements.x0020000e;
  // A value the file ends inside is part of a UID: another series' UID may start the same way.
  if (!ds || !el) return seriesUidInBytes(bytes);
  if (el.dataOffset + el.length > bytes.length) return undefined;
  const uid = (ds.string('x0020000e') ?? '').replace(/\0/g, '').trim();
  return uid || undefined;
}

/**
 * The Series Instance UID where its element lies in the bytes, when a parser did not reach it at the
 * top level (a sequence item without its end marker swallowed the rest of the header, and the image
 * with it): the one UID the bytes hold under that tag, in explicit or implicit VR; none when they hold
 * two different ones (a reference to another series) or none whole.
 */
function seriesUidInBytes(bytes: Buffer): string | undefined {
  const found = new Set<string>();
  const tag = Buffer.from([0x20, 0x00, 0x0e, 0x00]);
  for (let at = bytes.indexOf(tag); at >= 0; at = bytes.indexOf(tag, at + 1)) {
    const explicit = bytes[at + 4] === 0x55 && bytes[at + 5] === 0x49; // "UI"
    const length = explicit
      ? bytes.readUInt16LE(at + 6)
      : at + 8 <= bytes.length
        ? bytes.readUInt32LE(at + 4)
        : -1;
    const from = at + 8;
    if (length <= 0 || length > 64 || from + length > bytes.length) continue;
    const uid = bytes.toString('latin1', from, from + length).replace(/[\0 ]+$/, '');
    if (/^[0-9]+(\.[0-9]+)+$/.test(uid)) found.add(uid);
  }
  return found.size === 1 ? [...found][0] : undefined;
}

/** Up to `max` bytes from the start of a regular file; undefined when it cannot be read. */
async function firstBytes(path: string, max: number): Promise<Buffer | undefined> {
  let file: FileHandle | undefined;
  try {
    file = await openScanFile(path);
    const buf = Buffer.alloc(max);
    const { bytesRead } = await file.read(buf, 0, max, 0);
    return buf.subarray(0, bytesRead);
  } catch {
    return undefined;
  } finally {
    await file?.close().catch(() => undefined);
  }
}

/** The problem a series has for its damaged files: it lacks them, and which they are. */
export function damagedFilesProblem(files: DamagedFile[], beside: DamagedFile[] = []): ScanProblem {
  const all = [...files, ...beside];
  const n = all.length;
  const named = all
    .slice(0, 3)
    .map((f) => {
      const why = whyDamaged(f.message);
      return `${basename(f.display)}${why ? ` (${why})` : ''}`;
    })
    .join('; ');
  const whose =
    beside.length === 0
      ? `of this series ${n > 1 ? 'are' : 'is'} damaged`
      : files.length === 0
        ? `beside this series' files ${n > 1 ? 'are' : 'is'} damaged, too much to tell which series ${n > 1 ? 'they are' : 'it is'} of`
        : `of this series or beside its files ${n > 1 ? 'are' : 'is'} damaged`;
  const action =
    beside.length === 0
      ? 'export the series again'
      : `export the series again, or, if ${n > 1 ? 'they are' : 'it is'} not of it, take ${n > 1 ? 'them' : 'it'} out of the folder and drop it again`;
  return {
    severity: 'error',
    code: 'damaged-files',
    message: `${n} file${n > 1 ? 's' : ''} ${whose}: ${named}${n > 3 ? `; and ${n - 3} more` : ''}. The scan is not complete without ${n > 1 ? 'them' : 'it'}; ${action}.`,
    file: all[0]!.display,
  };
}

/** The reason in a damaged file's problem ("… was left out (its header is cut off …)."). */
function whyDamaged(message: string): string | undefined {
  return /\(([^()]*)\)\.?$/.exec(message)?.[1];
}
