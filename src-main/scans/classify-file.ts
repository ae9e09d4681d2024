import { basename } from 'node:path';
import type { ScanProblem } from '../../src-shared/scans.js';
import { archiveKind } from './archive-extract.js';
import { imageWithoutPixels, nonDicomReason, nonImageReason, unreadableWords } from './classify.js';
import { bufferSource, DicomParseError, DropOverBudget, parseFailure, type NotDicom } from './dicom-file.js';
import { DROP_OVER_BUDGET } from './drop-parse-budget.js';
import { readHeaderPrefix, withFile, type TagHeader } from './header-prefix.js';
import { fieldsOfRead, readAnyHeader, type AnyHeader } from './header-read.js';
import type { DicomHeader } from './header-types.js';
import { TAG } from './header-tags.js';
import { fixedText } from './header-values.js';

/** A file to look at: its path and the name the user knows it by (zip entries as archive/entry). */
export interface ClassifyItem {
  path: string;
  display: string;
}

/** What one file turned out to be. Plain data, so that it can come back from a worker thread. */
export type Classified =
  | { kind: 'image'; header: DicomHeader }
  | { kind: 'skip'; reason: string }
  /** `detail` is the technical cause (a parser's or the system's text): for the log, never for users. */
  | { kind: 'problem'; problem: ScanProblem; detail?: string }
  | { kind: 'archive'; archive: 'zip' | 'gzip' };

/**
 * Reads one file's header (only) and says what it is. Never throws. The tag-only reader reads the
 * common case; whatever it leaves (see header-tag-reader.ts) dicom-parser reads, as before.
 */
export function classifyFile(c: ClassifyItem): Classified {
  return classifyRead(c, () => withFile(c.path, readAnyHeader));
}

/** classifyFile for bytes in memory (the fuzz test and bench feed mutated headers this way). */
export function classifyBytes(bytes: Uint8Array, c: ClassifyItem): Classified {
  return classifyRead(c, () => readAnyHeader(bufferSource(bytes)));
}

/**
 * classifyFile with bounded work, for the thread that must stay responsive: at most `maxBytes` of
 * the file are read and only the tag-only reader runs. Undefined when the file needs more (a long
 * header, or one for dicom-parser): classifyFile, on a worker, reads it then. Written out rather
 * than through classifyRead: this runs once per file of every drop, mostly before the JIT has
 * compiled it, where each closure and call costs.
 */
export function classifyQuickly(c: ClassifyItem, maxBytes: number): Classified | undefined {
  let r: TagHeader | NotDicom | 'defer';
  try {
    r = withFile(c.path, (src) => readHeaderPrefix(src, maxBytes));
  } catch (e) {
    return failed(c, e);
  }
  return r === 'defer' ? undefined : classified(c, r);
}

/**
 * What a header read says the file is; `read` returns undefined when it left the file to another
 * reader (the result is then meaningless). Exported for the tests that compare readers.
 */
export function classifyRead(c: ClassifyItem, read: () => AnyHeader | NotDicom | undefined): Classified {
  let r: AnyHeader | NotDicom | undefined;
  try {
    r = read();
    if (r === undefined) return { kind: 'skip', reason: 'left to another reader' };
  } catch (e) {
    return failed(c, e);
  }
  return classified(c, r);
}

function failed(c: ClassifyItem, e: unknown): Classified {
  // Why, in `detail` too: intake says it once for the drop (intake.ts leftUnread).
  if (e instanceof DropOverBudget)
    return {
      kind: 'problem',
      problem: {
        severity: 'error',
        code: DROP_OVER_BUDGET,
        message: `${basename(c.display)} was not read: ${e.message}.`,
      },
      detail: e.message,
    };
  return e instanceof DicomParseError ? damaged(c, e) : unreadable(c, e);
}

function classified(c: ClassifyItem, r: AnyHeader | NotDicom): Classified {
  try {
    if ('notDicom' in r) {
      const archive = archiveKind(r.head);
      if (archive) return { kind: 'archive', archive };
      const cut = cutBeforeItsHeader(c.display, r);
      if (cut) return damaged(c, new DicomParseError(cut));
      return { kind: 'skip', reason: nonDicomReason(c.display, r.head, r.fileSize) };
    }
    const { header, tags: t } = fieldsOfRead(c.path, r);
    const metaClass = fixedText(t, TAG.mediaStorageSopClass) ?? '';
    if (imageWithoutPixels(header, metaClass))
      return damaged(
        c,
        new DicomParseError(
          'it says it is an image but holds no image data: the image was lost from the file, or its header runs on into it',
        ),
      );
    // Nothing says what it is (no SOP class, in the data set or the meta header), and no image: a
    // file cut off after its "DICM" mark or its meta header (a review's cut slices were skipped).
    if (!header.pixelData && !header.sopClassUid && !metaClass)
      return damaged(
        c,
        new DicomParseError(
          `nothing in its ${header.fileSize} bytes says what it is: it is cut off, or not an image`,
        ),
      );
    const reason = nonImageReason(header, t.offset[TAG.directoryRecords]! >= 0, metaClass);
    if (reason) return { kind: 'skip', reason };
    return { kind: 'image', header };
  } catch (e) {
    // One bad file must never stop the others: whatever went wrong reading its fields, list it.
    return damaged(c, parseFailure(e));
  }
}

/**
 * Why a file no reader takes for DICOM is a DICOM file cut off before its header, or undefined: its
 * "DICM" mark and nothing after it, or a file named as a DICOM file (.dcm, .dicom, .ima) too short
 * to hold one, empty or not. Skipped as "not DICOM", a slice cut off so was left out of its series
 * without a word (a review).
 */
function cutBeforeItsHeader(name: string, r: NotDicom): string | undefined {
  const marked = r.head.length >= 132 && r.head.toString('latin1', 128, 132) === 'DICM';
  if (marked) return `it ends after its first ${r.fileSize} bytes, before its header`;
  // Hidden files (a lock file, macOS's "._" sidecars) are no slices, whatever their names end in.
  if (/\.(dcm|dicom|ima)$/i.test(name) && !basename(name).startsWith('.') && r.fileSize < 132)
    return r.fileSize === 0 ? 'it is empty' : `it ends after its first ${r.fileSize} bytes`;
  return undefined;
}

function damaged(c: ClassifyItem, e: DicomParseError): Classified {
  return {
    kind: 'problem',
    problem: {
      severity: 'error',
      code: 'corrupt-file',
      message: `${basename(c.display)} is a damaged or incomplete DICOM file and was left out (${e.message}).`,
    },
    ...(e.detail ? { detail: e.detail } : {}),
  };
}

function unreadable(c: ClassifyItem, e: unknown): Classified {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const words = unreadableWords(e);
  return {
    kind: 'problem',
    problem: {
      severity: 'error',
      code: 'unreadable',
      message: `${basename(c.display)} cannot be read (${words}).`,
    },
    detail: code ?? String(e),
  };
}
