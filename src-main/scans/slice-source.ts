import {
  bufferSource,
  parseDicomFile,
  readDicomFile,
  type NotDicom,
  type ParsedDicom,
} from './dicom-file.js';
import { withFile } from './header-prefix.js';
import { readAnyHeader, type AnyHeader } from './header-read.js';

/**
 * Where the volume reader gets a slice file's bytes: from disk (the default), or from memory when
 * the local engine holds the files of an uploaded zip, so that they are not written out only to be
 * read straight back. Files are named by path either way; the name is what errors show.
 */
export interface SliceSource {
  /** The header only, by either reader (header-read.ts); throws as readDicomHeader does. */
  header(path: string): AnyHeader | NotDicom;
  /** The whole file parsed, pixel data included (readDicomFile's contract). */
  file(path: string): Promise<ParsedDicom & { buffer: Buffer }>;
  /** The file's bytes when they are in memory already (then a frame can be read without a parse). */
  bytes?(path: string): Uint8Array | undefined;
}

const headerOnDisk = (path: string): AnyHeader | NotDicom => withFile(path, readAnyHeader);

export const diskSlices: SliceSource = { header: headerOnDisk, file: readDicomFile };

/** Files held in memory, by name; a name not held is read from disk. */
export function memorySlices(files: ReadonlyMap<string, Buffer>): SliceSource {
  return {
    header: (path) => {
      const b = files.get(path);
      return b ? readAnyHeader(bufferSource(b)) : headerOnDisk(path);
    },
    file: async (path) => {
      const b = files.get(path);
      return b ? parseDicomFile(b) : readDicomFile(path);
    },
    bytes: (path) => files.get(path),
  };
}
