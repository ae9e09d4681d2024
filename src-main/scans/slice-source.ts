import {
  bufferSource,
  parseDicomFile,
  readDicomFile,
  readDicomHeader,
  readDicomHeaderSync,
  type HeaderRead,
  type NotDicom,
  type ParsedDicom,
} from './dicom-file.js';

/**
 * Where the volume reader gets a slice file's bytes: from disk (the default), or from memory when
 * the local engine holds the files of an uploaded zip, so that they are not written out only to be
 * read straight back. Files are named by path either way; the name is what errors show.
 */
export interface SliceSource {
  /** The header only (readDicomHeaderSync's contract). */
  header(path: string): HeaderRead | NotDicom;
  /** The whole file parsed, pixel data included (readDicomFile's contract). */
  file(path: string): Promise<ParsedDicom & { buffer: Buffer }>;
  /** The file's bytes when they are in memory already (then a frame can be read without a parse). */
  bytes?(path: string): Uint8Array | undefined;
}

export const diskSlices: SliceSource = { header: readDicomHeaderSync, file: readDicomFile };

/** Files held in memory, by name; a name not held is read from disk. */
export function memorySlices(files: ReadonlyMap<string, Buffer>): SliceSource {
  return {
    header: (path) => {
      const b = files.get(path);
      return b ? readDicomHeader(bufferSource(b)) : readDicomHeaderSync(path);
    },
    file: async (path) => {
      const b = files.get(path);
      return b ? parseDicomFile(b) : readDicomFile(path);
    },
    bytes: (path) => files.get(path),
  };
}
