import {
  bufferSource,
  DicomParseError,
  parseDicomFile,
  readDicomFile,
  type ByteSource,
  type NotDicom,
  type ParsedDicom,
} from './dicom-file.js';
import {
  readRegion,
  readRegionInto,
  RegionReadError,
  withRegionFile,
  type FileRegion,
} from './file-region.js';
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
        ? inRegion(r, () => withRegionFile(r, (fd) => readAnyHeader(regionSource(fd, r))))
        : headerOnDisk(path);
    },
    file: async (path) => {
      const b = files.get(path);
      if (b) return parseDicomFile(b);
      const r = regions.get(path);
      return r ? inRegion(r, () => parseDicomFile(readRegion(r))) : readDicomFile(path);
    },
    bytes: (path) => files.get(path),
    region: (path) => regions.get(path),
  };
}

/** A region of an open file as a ByteSource: reads past its end find nothing, as at a file's end. */
function regionSource(fd: number, r: FileRegion): ByteSource {
  return {
    size: () => r.size,
    read: (into, at, length, position) => {
      const n = Math.max(0, Math.min(length, r.size - position));
      if (n > 0) readRegionInto(fd, r, position, n, into, at);
      return n;
    },
  };
}

/** A region that cannot be read whole is a damaged file, in the words the volume reader shows. */
function inRegion<T>(r: FileRegion, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof RegionReadError) throw new DicomParseError('it is cut off', e.message);
    throw e;
  }
}
