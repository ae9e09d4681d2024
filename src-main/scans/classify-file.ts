import { basename } from 'node:path';
import type { ScanProblem } from '../../src-shared/scans.js';
import { archiveKind } from './archive-extract.js';
import { nonDicomReason, nonImageReason } from './classify.js';
import { DicomParseError, readDicomHeaderSync } from './dicom-file.js';
import { headerFields, type DicomHeader } from './header-fields.js';

/** A file to look at: its path and the name the user knows it by (zip entries as archive/entry). */
export interface ClassifyItem {
  path: string;
  display: string;
}

/** What one file turned out to be. Plain data, so that it can come back from a worker thread. */
export type Classified =
  | { kind: 'image'; header: DicomHeader }
  | { kind: 'skip'; reason: string }
  | { kind: 'problem'; problem: ScanProblem }
  | { kind: 'archive'; archive: 'zip' | 'gzip' };

/** Reads one file's header (only) and says what it is. Never throws. */
export function classifyFile(c: ClassifyItem): Classified {
  let read;
  try {
    read = readDicomHeaderSync(c.path);
  } catch (e) {
    if (e instanceof DicomParseError) {
      return {
        kind: 'problem',
        problem: {
          severity: 'error',
          code: 'corrupt-file',
          message: `${basename(c.display)} is a damaged or incomplete DICOM file and was left out (${e.message}).`,
        },
      };
    }
    const code = (e as NodeJS.ErrnoException).code;
    return {
      kind: 'problem',
      problem: {
        severity: 'error',
        code: 'unreadable',
        message: `${basename(c.display)} cannot be read (${code ?? (e as Error).message}).`,
      },
    };
  }
  if ('notDicom' in read) {
    const archive = archiveKind(read.head);
    if (archive) return { kind: 'archive', archive };
    return { kind: 'skip', reason: nonDicomReason(c.display, read.head, read.fileSize) };
  }
  const header = headerFields(c.path, read.fileSize, read.parsed);
  const ds = read.parsed.dataSet;
  const metaClass = (ds.string('x00020002') ?? '').replace(/\0/g, '');
  const reason = nonImageReason(header, ds.elements.x00041220 !== undefined, metaClass);
  if (reason) return { kind: 'skip', reason };
  return { kind: 'image', header };
}
