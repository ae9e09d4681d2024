// Values kept by their tag that still had room for a name (a review of issue "Trusted data"): lists
// of numbers longer than their attribute holds, lookup tables of any bytes, lists whose attribute has
// no bound, tags that are no attribute, graphic annotations, and a codestream stored as plain pixels.
// Each is planted by pydicom in a real phantom slice with a marker, and must not reach the upload.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src-shared/errors.js';
import { readDicomFile } from './dicom-file.js';
import { UidMapper, deidentifyDicom } from './deidentify.js';
import { intake } from './intake.js';
import {
  copyClaimingSyntax,
  FIXTURES,
  phantomBySlice,
  phantomFiles,
  pydicomMissing,
  python,
  tempFolders,
} from './scans.test-support.js';

const { fresh } = tempFolders('s2m-deid-lists-');

/** What pydicom reads in a de-identified file: `expression` of `d`, the data set read back, as JSON. */
function readBack<T = unknown>(out: Buffer, expression: string): T {
  const path = join(fresh('out'), 'out.dcm');
  writeFileSync(path, out);
  return python<T>(
    `import sys, json, pydicom\nd = pydicom.dcmread(sys.argv[1])\nprint(json.dumps(${expression}))`,
    [path],
  );
}
const noPydicom = pydicomMissing();

const PLANT = String.raw`
import sys, struct, json, pydicom
from pydicom.dataset import Dataset
from pydicom.dataelem import DataElement
from pydicom.sequence import Sequence
src, dst = sys.argv[1:3]
ds = pydicom.dcmread(src)
text = lambda s: s.encode() + (b' ' if len(s) % 2 else b'')
# Numbers past the attribute's multiplicity (Slice Thickness and Acquisition Number hold one).
ds.SliceThickness = ['1.0', '19650312', '4711815']
ds.add(DataElement(0x00200012, 'IS', ['1', '4711816']))
# Lookup tables of any bytes, at the top level and inside the sequences that carry them.
lut = lambda: DataElement(0x00283006, 'OW', text('LKLIST-LUT DOE^JOHN MRN4711815'))
ds.add(lut())
voi = Dataset(); voi.add(lut()); voi.add(DataElement(0x00283002, 'US', [4, 0, 16]))
ds.add(DataElement(0x00283110, 'SQ', Sequence([voi])))
pres = Dataset(); pres.add(lut())
ds.add(DataElement(0x20500010, 'SQ', Sequence([pres])))
pvt = Dataset(); pvt.add(lut()); pvt.RescaleSlope = '1'; pvt.RescaleIntercept = '-1024'
shared = Dataset(); shared.add(DataElement(0x00289145, 'SQ', Sequence([pvt])))
ds.add(DataElement(0x52009229, 'SQ', Sequence([shared])))
# Lists without a bound, holding text packed as numbers.
ds.add(DataElement(0x00186054, 'FD', list(struct.unpack('<4d', b'LKLIST-FD DOE^JANE MRN4711815   '))))
ds.add(DataElement(0x00209518, 'US', list(struct.unpack('<8H', b'LKLIST-US JANE  '))))
# Tags that are no attribute: four letters of a name at a time.
ds.add(DataElement(0x00280009, 'AT', [struct.unpack('<HH', b'LKLI')[0] << 16 | struct.unpack('<HH', b'LKLI')[1]]))
# Codes past their multiplicity, and an ISO number that names no standard.
ds.add(DataElement(0x00200020, 'CS', ['L', 'P', 'A', 'H', 'F', 'R', 'LAH', 'FRP']))
ds.add(DataElement(0x00282114, 'CS', ['ISO_19650_31', 'ISO_4711_81']))
# A text object: an annotation's words and where they go.
obj = Dataset(); obj.add(DataElement(0x00700006, 'ST', 'LKLIST-TEXT DOE^JOHN'))
obj.add(DataElement(0x00700014, 'FL', [1.0, 2.0]))
ds.add(DataElement(0x00700008, 'SQ', Sequence([obj])))
graphic = Dataset(); graphic.add(DataElement(0x00700022, 'FL', list(struct.unpack('<4f', b'LKLIST-GRAPHIC  '))))
ds.add(DataElement(0x00700009, 'SQ', Sequence([graphic])))
ds.save_as(dst)
print(json.dumps(True))
`;

const READ = String.raw`
import sys, json, pydicom
d = pydicom.dcmread(sys.argv[1])
print(json.dumps({
  'thickness': 'SliceThickness' in d, 'acquisition': 'AcquisitionNumber' in d, 'lut': 'LUTData' in d,
  'softcopyVoi': 0x00283110 in d, 'presentation': 0x20500010 in d,
  'pvtLut': any(0x00283006 in i for s in d.get('SharedFunctionalGroupsSequence', []) for i in s.get('PixelValueTransformationSequence', [])),
  'pvtSlope': [str(i.RescaleSlope) for s in d.get('SharedFunctionalGroupsSequence', []) for i in s.get('PixelValueTransformationSequence', [])],
  'yBreak': 0x00186054 in d, 'acquisitionIndex': 0x00209518 in d, 'framePointer': 0x00280009 in d,
  'orientation': 'PatientOrientation' in d, 'method': 'LossyImageCompressionMethod' in d,
  'text': 0x00700008 in d, 'graphic': 0x00700009 in d, 'rows': d.Rows, 'window': [len(d.get('WindowCenter', [])) if d.get('WindowCenter') is not None else None]}))
`;

describe.skipIf(noPydicom !== null)('lists of values, lookup tables and annotations', () => {
  it('leave no planted byte in the upload; what a CT is read by stays', async () => {
    const planted = join(fresh('plant'), 'planted.dcm');
    python(PLANT, [phantomBySlice()[70]!, planted]);
    expect(readFileSync(planted).includes('LKLIST-LUT')).toBe(true);
    const out = deidentifyDicom(await readDicomFile(planted), new UidMapper());
    for (const marker of ['LKLIST', 'LKLI', 'DOE^', 'JOHN', 'JANE', '4711815', '19650312', 'ISO_19650'])
      expect(out.includes(Buffer.from(marker, 'latin1')), marker).toBe(false);
    const path = join(fresh('out'), 'out.dcm');
    writeFileSync(path, out);
    expect(python<Record<string, unknown>>(READ, [path])).toEqual({
      thickness: false,
      acquisition: false,
      lut: false,
      softcopyVoi: false,
      presentation: false,
      pvtLut: false,
      pvtSlope: ['1'],
      yBreak: false,
      acquisitionIndex: false,
      framePointer: false,
      orientation: false,
      method: false,
      text: false,
      graphic: false,
      rows: 512,
      // The phantom's own window goes too: a display setting no segmentation reads (deid-profile.ts).
      window: [null],
    });
  });

  it('keeps values that are what their attribute holds', async () => {
    const planted = join(fresh('valid'), 'valid.dcm');
    python(
      String.raw`
import sys, json, pydicom
from pydicom.dataelem import DataElement
ds = pydicom.dcmread(sys.argv[1])
ds.add(DataElement(0x00280009, 'AT', [0x00181063]))
ds.PatientOrientation = ['L', 'P']
ds.add(DataElement(0x00282114, 'CS', ['ISO_10918_1']))
ds.save_as(sys.argv[2])
print(json.dumps(True))`,
      [phantomBySlice()[70]!, planted],
    );
    const out = deidentifyDicom(await readDicomFile(planted), new UidMapper());
    expect(
      readBack(
        out,
        '[int(d[0x00280009].value), list(d.PatientOrientation), d.LossyImageCompressionMethod, str(d.SliceThickness)]',
      ),
    ).toEqual([0x00181063, ['L', 'P'], 'ISO_10918_1', '1']);
  });
});

describe.skipIf(noPydicom !== null)('numbers a CT is not read by', () => {
  it('are left out: text packed into doubles and long lists reach no upload', async () => {
    const planted = join(fresh('numbers'), 'numbers.dcm');
    python(
      String.raw`
import sys, struct, json, pydicom
from pydicom.dataset import Dataset
from pydicom.dataelem import DataElement
from pydicom.sequence import Sequence
ds = pydicom.dcmread(sys.argv[1])
d = lambda b: struct.unpack('<d', b)[0]
ds.add(DataElement(0x00189306, 'FD', d(b'LKNUMBER')))
ds.add(DataElement(0x00189313, 'FD', [d(b'19650312'), d(b'DOE^JOHN'), d(b'MRN47118')]))
inner = Dataset(); inner.add(DataElement(0x00189305, 'FD', d(b'LKNESTED')))
ds.add(DataElement(0x00189304, 'SQ', Sequence([inner])))
ds.WindowCenter = ['76', '69', '65', '75', '77', '65', '82', '75']
ds.WindowWidth = ['1'] * 8
fc = Dataset(); fc.add(DataElement(0x00209157, 'UL', [struct.unpack('<I', b'LKDI')[0]]))
fc2 = Dataset(); fc2.add(DataElement(0x00209157, 'UL', [1] * 8))
ds.add(DataElement(0x00209111, 'SQ', Sequence([fc, fc2])))
ds.add(DataElement(0x3004000c, 'DS', ['76', '69', '65', '75', '77', '65', '82', '75']))
ds.save_as(sys.argv[2])
print(json.dumps(True))`,
      [phantomBySlice()[70]!, planted],
    );
    const out = deidentifyDicom(await readDicomFile(planted), new UidMapper());
    for (const marker of ['LKNUMBER', 'LKNESTED', 'LKDI', '19650312', 'DOE^JOHN', 'MRN47118'])
      expect(out.includes(Buffer.from(marker, 'latin1')), marker).toBe(false);
    expect(
      readBack(
        out,
        "[0x00189306 in d, 0x00189313 in d, 0x00189304 in d, 'WindowCenter' in d, 0x3004000c in d, 0x00209111 in d, d.Rows, str(d.RescaleIntercept)]",
      ),
    ).toEqual([false, false, false, false, false, false, 512, '-1024']);
  });

  it('keep what an Enhanced CT is read by: its frames’ dimension indices (as the file has them), up to its frame count', async () => {
    const out = deidentifyDicom(
      await readDicomFile(join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm')),
      new UidMapper(),
    );
    expect(
      readBack(
        out,
        '[[int(v) for v in f.FrameContentSequence[0].DimensionIndexValues] for f in d.PerFrameFunctionalGroupsSequence]',
      ),
    ).toEqual([
      [1, 2],
      [1, 1],
    ]);
  });
});

describe('a compressed transfer syntax whose pixel data is one plain value', () => {
  it('is damaged when looked at, and refused by de-identification rather than sent as it is', async () => {
    // A real slice whose meta header claims RLE Lossless (compressed: its frames must be items).
    const folder = fresh('claims-rle');
    const claimed = copyClaimingSyntax(
      phantomFiles()[4]!,
      join(folder, 'claims-rle.dcm'),
      '1.2.840.10008.1.2.5',
    );
    const { result } = await intake([folder], { tempDir: fresh('work') });
    const problems = [...result.series.flatMap((s) => s.problems), ...result.problems];
    expect(problems.map((p) => p.message)).toContain(
      'claims-rle.dcm says its pixels are compressed (RLE Lossless) but stores its image data as one plain value, as only uncompressed images are stored: it is damaged.',
    );
    const e = await readDicomFile(claimed)
      .then((parsed) => deidentifyDicom(parsed, new UidMapper()))
      .catch((x: unknown) => x);
    expect(isAppError(e) && e.message).toMatch(
      /says its pixels are compressed but stores them as one plain value/,
    );
  });
});
