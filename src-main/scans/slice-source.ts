import {
  bufferSource,
  DicomParseError,
  parseDicomFile,
  readDicomFile,
  type ByteSource,
  windowSource,
  withFileSync,
  type NotDicom,
  type ParsedDicom,
} from './dicom-file.js';
import { readRegion, RegionReadError, type FileRegion } from './file-region.js';
import { withFile } from './header-prefix.js';
import { readAnyHeader, type AnyHeader } from './header-read.js';

/**
 * Where the volume reader gets a slice file's bytes: from disk (the default), or, for the files of
 * an uploaded zip, from memory (inflated entries) or where they lie in the zip (stored ones), so that
 * they are not written out only to be read straight back. Files are named by path either way; the
 * name is what errors show.
 */
export interface SliceSource {
  /** The header only, by either reader (header-read.ts); throws as readDicomHeader does. */
  header(path: string): AnyHeader | NotDicom;
  /** The whole file parsed, pixel data included (readDicomFile's contract). */
  file(path: string): Promise<ParsedDicom & { buffer: Buffer }>;
  /** The file's bytes when they are in memory already (then a frame can be read without a parse). */
  bytes?(path: string): Uint8Array | undefined;
  /** Where the file lies in another file, when it does (then a frame can be read without a parse). */
  region?(path: string): FileRegion | undefined;
}

const headerOnDisk = (path: string): AnyHeader | NotDicom => withFile(path, readAnyHeader);

export const diskSlices: SliceSource = { header: headerOnDisk, file: readDicomFile };

/**
 * Files held in memory, and files lying in another file (`regions`), by name; a name in neither is
 * read from disk.
 */
export function heldSlices(
  files: ReadonlyMap<string, Buffer>,
  regions: ReadonlyMap<string, FileRegion> = new Map(),
): SliceSource {
  return {
    header: (path) => {
      const b = files.get(path);
      if (b) return readAnyHeader(bufferSource(b));
      const r = regions.get(path);
      return r
        ? inRegion(() => withFileSync(r.file, 'r', (src) => readAnyHeader(inside(src, r))))
        : headerOnDisk(path);
    },
    file: async (path) => {
      const b = files.get(path);
      if (b) return parseDicomFile(b);
      const r = regions.get(path);
      return r ? inRegion(() => parseDicomFile(readRegion(r))) : readDicomFile(path);
    },
    bytes: (path) => files.get(path),
    region: (path) => regions.get(path),
  };
}

/** A region of its file, read through that file's source. */
const inside = (src: ByteSource, r: FileRegion): ByteSource =>
  windowSource(src, r.offset, r.size, () => new RegionReadError('the file ends inside it'));

/** A region that cannot be read whole is a damaged file, in the words the volume reader shows. */
function inRegion<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof RegionReadError) throw new DicomParseError('it is cut off', e.message);
    throw e;
  }
}
