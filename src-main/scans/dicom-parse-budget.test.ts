import type { DataSet } from 'dicom-parser';
import { describe, expect, it } from 'vitest';
import { parseFailure } from './dicom-parse.js';
import { dicomParserLib, withParserBudget } from './dicom-parser-lib.js';

/** `n` empty explicit VR little endian elements of distinct private tags, as a data set without meta header. */
function emptyElements(n: number): Buffer {
  const b = Buffer.alloc(8 * n);
  for (let k = 0; k < n; k++) {
    b.writeUInt16LE(0x0011 + 2 * Math.floor(k / 0xff00), 8 * k);
    b.writeUInt16LE(0x0100 + (k % 0xff00), 8 * k + 2);
    b.write('LO', 8 * k + 4, 'latin1');
  }
  return b;
}

// The library as the app loads it (dicom-parser-lib.ts): its reads are the ones counted.
const parse = (b: Buffer): DataSet =>
  dicomParserLib().parseDicom(b, { TransferSyntaxUID: '1.2.840.10008.1.2.1' });

describe("dicom-parser's work, bounded whatever the layout", () => {
  it('stops a parse that reads more tags and lengths than its budget, in the words for too many elements', () => {
    // Whatever layout a count read otherwise (six were found), dicom-parser reads a tag and a length
    // for every element it makes: a parse is stopped after its budget of reads.
    const bytes = emptyElements(2000);
    expect(Object.keys(withParserBudget(() => parse(bytes), 100_000).elements)).toHaveLength(2001);
    let failure: unknown;
    try {
      withParserBudget(() => parse(bytes), 1000);
    } catch (e) {
      failure = e;
    }
    expect(parseFailure(failure).message).toMatch(/^its header holds more than 1,000,000 data elements/);
    // Outside a budgeted parse, reads are not bounded (a data set's values are read later).
    expect(Object.keys(parse(bytes).elements)).toHaveLength(2001);
  });
});
