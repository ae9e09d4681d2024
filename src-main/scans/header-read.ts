import { readDicomHeader, type ByteSource, type HeaderRead, type NotDicom } from './dicom-file.js';
import { tableFields, tableOf } from './header-fields.js';
import { MAX_HEADER_BYTES } from './header-bounds.js';
import { readHeaderPrefix, type TagHeader } from './header-prefix.js';
import type { DicomHeader } from './header-types.js';
import type { TagTable } from './header-values.js';

/**
 * One way to read a file's header, for the drop (classify-file.ts) and for the volume reader alike:
 * the tag-only reader (header-tag-reader.ts) for the common case, dicom-parser for what it leaves.
 */

/** A header as either reader returns it. */
export type AnyHeader = TagHeader | HeaderRead;

export function readAnyHeader(src: ByteSource): AnyHeader | NotDicom {
  // Past MAX_HEADER_BYTES the tag-only reader leaves the file to readDicomHeader, which refuses it.
  const quick = readHeaderPrefix(src, MAX_HEADER_BYTES);
  return quick === 'defer' ? readDicomHeader(src) : quick;
}

/**
 * The fields of a header either reader read, with the table of its tags. Called before the next
 * file is read: the tag-only reader's table is reused for it.
 */
export function fieldsOfRead(path: string, r: AnyHeader): { header: DicomHeader; tags: TagTable } {
  if ('tags' in r) return { header: tableFields(path, r.fileSize, r.fileId, r.tags), tags: r.tags };
  const tags = tableOf(r.parsed);
  return { header: tableFields(path, r.fileSize, r.fileId, tags, r.parsed.dataSet), tags };
}
