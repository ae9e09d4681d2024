import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
  ftruncateSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import dicomParser from 'dicom-parser';
import { classifyFile } from './classify-file.js';
import { countElements, MAX_HEADER_BYTES, MAX_HEADER_ELEMENTS, MAX_SEQUENCE_DEPTH } from './header-bounds.js';
import { phantomFiles, shortElement, withElements } from './scans.test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'header-bounds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LE = { littleEndian: true, explicitVr: true };

/** An explicit VR big-endian element with a short VR (8-byte header). */
const shortBe = (group: number, element: number, vr: string, value: Buffer): Buffer =>
  shortElement(group, element, vr, value, true);

describe('countElements', () => {
  it('counts a real CT header up to its pixel data, nested items included', () => {
    const bytes = readFileSync(phantomFiles()[0]!);
    const ds = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' });
    const top = Object.keys(ds.elements).filter((t) => t !== 'x7fe00010' && !t.startsWith('x0002')).length;
    const start = (dicomParser.readPart10Header(bytes) as unknown as { position: number }).position;
    // At least every top-level element of the data set, and not more than a few per element.
    const n = countElements(bytes, start, LE, true).elements;
    expect(n).toBeGreaterThanOrEqual(top);
    expect(n).toBeLessThan(top * 3);
    // Past the pixel data too, which the whole file has: its value is stepped over, not counted in.
    expect(countElements(bytes, start, LE, false)).toEqual({ elements: n + 1, fragments: 0, wide: [] });
  });
});

describe('countElements, on image data in fragments and on undefined lengths', () => {
  it('counts fragments apart from elements, and names an undefined length the standard does not allow', () => {
    const pixels = Buffer.from([0xe0, 0x7f, 0x10, 0x00, 0x4f, 0x42, 0, 0, 0xff, 0xff, 0xff, 0xff]);
    const empty = Buffer.from([0xfe, 0xff, 0x00, 0xe0, 0, 0, 0, 0]);
    const bytes = Buffer.concat([pixels, ...Array.from({ length: 20 }, () => empty)]);
    expect(countElements(bytes, 0, LE, false, 10)).toEqual({ elements: 1, fragments: 10, wide: [] });
    const stray = Buffer.from([0x09, 0x00, 0x10, 0x10, 0x55, 0x54, 0, 0, 0xff, 0xff, 0xff, 0xff]);
    expect(countElements(Buffer.concat([stray, empty]), 0, LE, true)).toEqual({
      elements: 1,
      fragments: 0,
      stray: { tag: '(0009,1010)', vr: 'UT' },
      wide: [],
    });
    // An Extended Offset Table (OV): where its VR lies, for dicom-parser's sake (dicom-parse.ts).
    const table = Buffer.from([0xe0, 0x7f, 0x01, 0x00, 0x4f, 0x56, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(countElements(Buffer.concat([table, pixels, empty]), 0, LE, false).wide).toEqual([4]);
  });
});

describe('a header too big to read', () => {
  it('refuses millions of empty elements before dicom-parser makes an object of each', () => {
    // A data set without preamble in explicit VR big endian (read by dicom-parser alone): a few real
    // elements, one 4 MB value (so that the first, partial reads hold few elements), then more
    // empty elements than MAX_HEADER_ELEMENTS.
    const head = Buffer.concat([
      shortBe(0x0008, 0x0005, 'CS', Buffer.from('ISO_IR 100', 'latin1')),
      shortBe(0x0008, 0x0016, 'UI', Buffer.from('1\0', 'latin1')),
      shortBe(0x0008, 0x0060, 'CS', Buffer.from('CT', 'latin1')),
    ]);
    const blob = Buffer.alloc(12);
    blob.writeUInt16BE(0x0009, 0);
    blob.writeUInt16BE(0x1001, 2);
    blob.write('OB', 4, 'latin1');
    blob.writeUInt32BE(4 * 1024 ** 2, 8);
    const empty = shortBe(0x0011, 0x1010, 'LO', Buffer.alloc(0));
    const path = join(dir, 'many-elements.dcm');
    const fd = openSync(path, 'w');
    writeSync(fd, Buffer.concat([head, blob, Buffer.alloc(4 * 1024 ** 2)]));
    const run = Buffer.concat(Array.from({ length: 10_000 }, () => empty));
    for (let k = 0; k < MAX_HEADER_ELEMENTS / 10_000 + 10; k++) writeSync(fd, run);
    closeSync(fd);
    const r = classifyFile({ path, display: 'many-elements.dcm' });
    expect(r).toMatchObject({ kind: 'problem', problem: { severity: 'error' } });
    expect(JSON.stringify(r)).toContain('more than 1,000,000 data elements before the image data');
  });

  it('refuses one element gigabytes long instead of reading the file into memory', () => {
    // A real CT header whose last element before the image data declares 3 GB; the file is sparse.
    const slice = readFileSync(phantomFiles()[0]!);
    const pixels = dicomParser.parseDicom(slice, { untilTag: 'x7fe00010' }).elements.x7fe00010!;
    const header = slice.subarray(0, pixels.dataOffset - 12);
    const big = Buffer.alloc(12);
    big.writeUInt16LE(0x7fdf, 0);
    big.writeUInt16LE(0x0010, 2);
    big.write('OB', 4, 'latin1');
    big.writeUInt32LE(3 * 1024 ** 3, 8);
    const path = join(dir, 'huge-element.dcm');
    const fd = openSync(path, 'w');
    writeSync(fd, Buffer.concat([header, big]));
    ftruncateSync(fd, header.length + 12 + 3 * 1024 ** 3);
    closeSync(fd);
    const before = process.memoryUsage().rss;
    const r = classifyFile({ path, display: 'huge-element.dcm' });
    expect(JSON.stringify(r)).toContain(
      `runs on past ${MAX_HEADER_BYTES / 1024 ** 2} MB before the image data`,
    );
    // Read no further than the bound (twice at most: the tag-only reader, then dicom-parser's).
    expect(process.memoryUsage().rss - before).toBeLessThan(3 * MAX_HEADER_BYTES);
  });
});

/** An element in explicit (`vr` given) or implicit VR little endian, with a 4-byte length where due. */
function le(tag: number, vr: string | null, value: Buffer, length = value.length): Buffer {
  const long = vr === null || ['OB', 'OW', 'SQ', 'UN', 'UT'].includes(vr);
  const b = Buffer.alloc(vr === null ? 8 : long ? 12 : 8);
  b.writeUInt16LE(tag >>> 16, 0);
  b.writeUInt16LE(tag & 0xffff, 2);
  if (vr === null) b.writeUInt32LE(length, 4);
  else {
    b.write(vr, 4, 'latin1');
    if (long) b.writeUInt32LE(length, 8);
    else b.writeUInt16LE(length, 6);
  }
  return Buffer.concat([b, value]);
}
const UNDEFINED = 0xffffffff;
const item = (length = UNDEFINED): Buffer => le(0xfffee000, null, Buffer.alloc(0), length);
const itemEnd = le(0xfffee00d, null, Buffer.alloc(0));
const sequenceEnd = le(0xfffee0dd, null, Buffer.alloc(0));
/** `n` empty implicit-VR elements of distinct tags. */
const emptyImplicit = (n: number): Buffer =>
  Buffer.concat(Array.from({ length: n }, (_, k) => le(0x00110000 + k + 1, null, Buffer.alloc(0))));

/** How many elements and items dicom-parser makes of a data set, all levels. */
function parsedCount(ds: dicomParser.DataSet): number {
  let n = 0;
  for (const el of Object.values(ds.elements)) {
    n++;
    for (const it of el.items ?? []) n += 1 + (it.dataSet ? parsedCount(it.dataSet) : 0);
  }
  return n;
}

describe('countElements reads the bytes as dicom-parser does', () => {
  // Found by a review: each layout hid millions of empty elements from the count (read another way
  // than dicom-parser reads them), and a 96 MB file of them stalled a drop for minutes at 2 GB.
  const explicitLe = { littleEndian: true, explicitVr: true };
  const implicitLe = { littleEndian: true, explicitVr: false };
  const modality = (vr: string | null): Buffer => le(0x00080060, vr, Buffer.from('CT'));
  const cases: [string, Buffer, typeof explicitLe][] = [
    [
      // An undefined-length UN: dicom-parser reads its items in implicit VR.
      'an undefined-length UN in explicit VR',
      Buffer.concat([
        modality('CS'),
        le(0x00091010, 'UN', Buffer.alloc(0), UNDEFINED),
        item(),
        emptyImplicit(50),
        itemEnd,
        sequenceEnd,
      ]),
      explicitLe,
    ],
    [
      // A value of 4 bytes that starts with an item: dicom-parser reads a sequence, whose item runs on
      // to its delimiter past the 4 bytes.
      'a short value that starts with an item, in implicit VR',
      Buffer.concat([
        modality(null),
        le(0x00400275, null, Buffer.alloc(0), 4),
        item(),
        emptyImplicit(50),
        itemEnd,
      ]),
      implicitLe,
    ],
    [
      'items of defined length in an undefined-length sequence, in explicit VR',
      Buffer.concat([
        modality('CS'),
        le(0x00081115, 'SQ', Buffer.alloc(0), UNDEFINED),
        item(12),
        le(0x00081150, 'UI', Buffer.from('1.2\0')),
        item(),
        le(0x00081155, 'UI', Buffer.from('3.4\0')),
        itemEnd,
        sequenceEnd,
      ]),
      explicitLe,
    ],
  ];
  // A second review's layouts, each in an icon image sequence (0088,0200) of undefined length: the
  // count read them otherwise than dicom-parser and missed what followed (30 MB of them: 17 s, 1.2 GB).
  const explicitEmpty = (n: number): Buffer =>
    Buffer.concat(Array.from({ length: n }, (_, k) => le(0x00110100 + k, 'LO', Buffer.alloc(0))));
  const icon = (inner: Buffer): Buffer =>
    Buffer.concat([
      modality('CS'),
      le(0x00880200, 'SQ', Buffer.alloc(0), UNDEFINED),
      item(),
      inner,
      explicitEmpty(50),
      itemEnd,
      sequenceEnd,
    ]);
  const raw = (...parts: number[][]): Buffer => Buffer.from(parts.flat());
  cases.push(
    [
      // Image data of VR UN: dicom-parser reads fragments (its pixel data comes first), not items.
      'image data of VR UN and undefined length',
      icon(
        Buffer.concat([
          le(0x7fe00010, 'UN', Buffer.alloc(0), UNDEFINED),
          item(8),
          raw([0x09, 0, 0x10, 0, 0xf0, 0xff, 0xff, 0x7f]),
          sequenceEnd,
        ]),
      ),
      explicitLe,
    ],
    [
      // Another tag among fragments: the last fragment, and the data set goes on after it.
      'a tag that is no item among the fragments',
      icon(
        Buffer.concat([
          le(0x7fe00010, 'OB', Buffer.alloc(0), UNDEFINED),
          item(0),
          raw([8, 0, 0, 0, 0, 0, 0, 0]),
        ]),
      ),
      explicitLe,
    ],
    [
      // A sequence delimiter after fragments, with a length: dicom-parser steps over that length.
      'a delimiter of fragments with a length',
      icon(
        Buffer.concat([
          le(0x7fe00010, 'OB', Buffer.alloc(0), UNDEFINED),
          item(0),
          le(0xfffee0dd, null, Buffer.alloc(0), 20),
          le(0x00091000, 'OB', Buffer.alloc(8), 0x7ffffff0),
        ]),
      ),
      explicitLe,
    ],
    [
      // An item delimiter whose length bytes read, in explicit VR, as VR "\0\0" and a length of 20.
      'an item delimiter with a length, in explicit VR',
      Buffer.concat([
        modality('CS'),
        le(0x00880200, 'SQ', Buffer.alloc(0), UNDEFINED),
        item(),
        le(0x00280010, 'US', Buffer.from([64, 0])),
        raw([0xfe, 0xff, 0x0d, 0xe0, 0, 0, 20, 0]),
        sequenceEnd,
        le(0x00091000, 'OB', Buffer.alloc(0), 0x7ffffff0),
        sequenceEnd,
        explicitEmpty(50),
      ]),
      explicitLe,
    ],
  );
  for (const [name, bytes, syntax] of cases) {
    it(name, () => {
      // Parsed as dicom-parser parses a data set without meta header, in this transfer syntax.
      const TransferSyntaxUID = syntax.explicitVr ? '1.2.840.10008.1.2.1' : '1.2.840.10008.1.2';
      const parsed = dicomParser.parseDicom(bytes, { TransferSyntaxUID });
      const counted = countElements(bytes, 0, syntax, false);
      // Its count is dicom-parser's, less the transfer syntax it adds for a data set without meta header.
      expect(counted.elements).toBe(parsedCount(parsed) - 1);
      // Past a bound below that count, the count says so (and stops soon after it).
      const bound = counted.elements >> 1;
      const bounded = countElements(bytes, 0, syntax, false, bound);
      expect(bounded.elements + bounded.fragments).toBe(bound + 1);
    });
  }
});

describe('sequences nested too deep', () => {
  it('are refused before dicom-parser recurses into them (3,000 deep overflowed its stack)', () => {
    const nest = (depth: number): Buffer => {
      const open = Buffer.concat([le(0x00400275, 'SQ', Buffer.alloc(0), UNDEFINED), item()]);
      const close = Buffer.concat([itemEnd, sequenceEnd]);
      return Buffer.concat([
        le(0x00080060, 'CS', Buffer.from('CT')),
        ...Array.from({ length: depth }, () => open),
        ...Array.from({ length: depth }, () => close),
      ]);
    };
    const explicit = { littleEndian: true, explicitVr: true };
    expect(countElements(nest(MAX_SEQUENCE_DEPTH), 0, explicit, false).tooDeep).toBeUndefined();
    expect(countElements(nest(MAX_SEQUENCE_DEPTH + 1), 0, explicit, false).tooDeep).toBe(true);
    // A real phantom slice holding sequences 3,000 deep.
    const inner = nest(2999).subarray(le(0x00080060, 'CS', Buffer.from('CT')).length);
    const value = Buffer.concat([item(), inner, itemEnd]);
    const path = join(dir, 'deep.dcm');
    writeFileSync(
      path,
      withElements(readFileSync(phantomFiles()[0]!), [{ tag: 'x00400275', vr: 'SQ', value }]),
    );
    expect(JSON.stringify(classifyFile({ path, display: 'deep.dcm' }))).toContain(
      `its header nests sequences more than ${MAX_SEQUENCE_DEPTH} deep`,
    );
  });
});
