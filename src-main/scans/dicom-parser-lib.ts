/**
 * dicom-parser, loaded when a file first needs it, with its reads counted. The tag-only reader
 * (header-tag-reader.ts) reads the headers of nearly every drop; dicom-parser serves the rest (a
 * deflated data set, a header the reader leaves to it, damaged files, de-identification, pixels).
 * Loaded at start it cost every `scan2mesh inspect` about 2.5 ms of its ~85 (issue 14's goal is a
 * whole process under half of pydicom's), for files that mostly never need it.
 *
 * Its reads of tags and lengths are counted while a parse runs under withParserBudget. The element
 * count (header-bounds.ts countElements) refuses a header of too many elements before dicom-parser
 * starts, by walking the bytes as dicom-parser will; a layout it reads otherwise hid millions of
 * elements from it (a review found six), and dicom-parser then took minutes and gigabytes. So
 * dicom-parser's own work is bounded too: every element it makes reads its tag and length through its
 * byte-array parser (two for its tag, one or two for its length, two more where implicit VR peeks at
 * the next tag), and a parse that reads more than its budget is stopped, whatever the layout.
 */
import type * as DicomParserModule from 'dicom-parser';
import { lazyLibrary } from '../platform/lazy-library.js';
import { MAX_HEADER_ELEMENTS } from './header-bounds.js';

export type DicomParser = typeof DicomParserModule;

let parserReads = 0;
let parserBudget = Number.POSITIVE_INFINITY;

/** Thrown inside dicom-parser when a parse spends its reads (see withParserBudget). */
export class ParserBudgetSpent extends Error {}

/** Its tag and length reads counted; its own object, the library's functions copied. */
function countingReads(lib: DicomParser): DicomParser {
  for (const parser of [lib.littleEndianByteArrayParser, lib.bigEndianByteArrayParser]) {
    const { readUint16, readUint32 } = parser;
    parser.readUint16 = (array, position) => {
      if (++parserReads > parserBudget) throw new ParserBudgetSpent();
      return readUint16(array, position);
    };
    parser.readUint32 = (array, position) => {
      if (++parserReads > parserBudget) throw new ParserBudgetSpent();
      return readUint32(array, position);
    };
  }
  // A copy: the module's exports are getters that cannot be replaced, and tests watch how often a
  // function is called (pixel-decode-frames.test.ts).
  return { ...lib };
}

/** The library, loaded (and its reads made countable) on the first call. */
export const dicomParserLib = lazyLibrary<DicomParser>('dicom-parser', countingReads);

/** What dicom-parser may read of one file: six reads per element of the most a header may have. */
const MAX_PARSER_READS = 6 * MAX_HEADER_ELEMENTS;

/** Runs `parse` (dicom-parser's work on one file) with its reads bounded; not reentrant. */
export function withParserBudget<T>(parse: () => T, reads = MAX_PARSER_READS): T {
  parserReads = 0;
  parserBudget = reads;
  try {
    return parse();
  } finally {
    parserBudget = Number.POSITIVE_INFINITY;
  }
}
