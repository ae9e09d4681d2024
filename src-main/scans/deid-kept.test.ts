// Every attribute the profile keeps must be able to survive with a valid value: a check written for
// one VR removed Rescale Type, which the dictionary gives VR LO, so a CT in non-HU units was read as
// Hounsfield units once de-identified. The attributes are walked from the profile and the dictionary
// (not listed by hand), planted by pydicom in a slice of the real head CT, explicit and implicit VR.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDicomFile } from './dicom-file.js';
import { deidDecision } from './deid-profile.js';
import { PUBLIC_TAGS_BY_VR, VALUE_VM } from './deid-tables.js';
import { UidMapper, deidentifyDicom } from './deidentify.js';
import { FIXTURES, pydicomMissing, python, tempFolders } from './scans.test-support.js';

const { fresh } = tempFolders('s2m-deid-kept-');
const noPydicom = pydicomMissing();
const SLICE = join(FIXTURES, 'ct-human-cranium-teeth', 'slice050.dcm');

/** A valid value of each kept code (by position for Image Type), in PS3.3's defined terms. */
const CODES: Record<number, string[]> = {
  0x00080008: ['ORIGINAL', 'PRIMARY', 'AXIAL'], // Image Type
  0x00080060: ['CT'], // Modality
  0x00089007: ['ORIGINAL', 'PRIMARY', 'VOLUME', 'NONE'], // Frame Type
  0x00089205: ['MONOCHROME'],
  0x00089206: ['VOLUME'],
  0x00089207: ['NONE'],
  0x00185100: ['HFS'],
  0x00189302: ['SPIRAL'],
  0x00200020: ['L', 'P'], // Patient Orientation
  0x00280004: ['MONOCHROME2'],
  0x00281040: ['LIN'],
  0x00281054: ['US'], // Rescale Type (VR LO)
  0x00281056: ['LINEAR'],
  0x00282110: ['00'],
  0x00282114: ['ISO_10918_1'],
  0x00280301: ['NO'],
  0x00280302: ['NO'],
  0x00280303: ['UNMODIFIED'],
  0x20500020: ['IDENTITY'],
};

/**
 * Kept attributes with no valid value in a file of one frame, each tested where it has one: Grid
 * Frame Offset Vector is one offset per frame of a multi-frame file (deid-lists.test.ts); the
 * de-identifier writes Longitudinal Temporal Information Modified itself (REMOVED).
 */
const NOT_IN_ONE_FRAME = new Set([0x3004000c, 0x00280303]);

const NUMBER_VRS = ['US', 'SS', 'UL', 'SL', 'UV', 'SV', 'FL', 'FD', 'DS', 'IS', 'AT'];

/** Every public attribute the profile keeps, but sequences and pixel data: [tag, VR, values]. */
function keptAttributes(): [number, string, (string | number)[]][] {
  const out: [number, string, (string | number)[]][] = [];
  for (const [dictVr, tags] of Object.entries(PUBLIC_TAGS_BY_VR)) {
    const vr = dictVr.split('|')[0]!;
    if (vr === 'SQ' || vr.startsWith('O')) continue;
    for (const tag of tags) {
      if (deidDecision(tag) !== 'keep' || NOT_IN_ONE_FRAME.has(tag)) continue;
      const count = Number(/^\d+/.exec(VALUE_VM.get(tag) ?? '1')?.[0] ?? 1);
      // A number that is valid for every kept number (1: an index within the one frame).
      const one = vr === 'AT' ? 0x00280010 : vr === 'DS' || vr === 'IS' ? '1' : 1;
      const codes = CODES[tag];
      expect(codes ?? NUMBER_VRS.includes(vr), `a valid value for ${tag.toString(16)} ${vr}`).toBeTruthy();
      out.push([tag, vr, codes ?? Array.from({ length: count }, () => one)]);
    }
  }
  return out;
}

const PLANT = String.raw`
import sys, json, pydicom
from pydicom.dataset import Dataset
from pydicom.sequence import Sequence
from pydicom.uid import ImplicitVRLittleEndian
src, dst, syntax, kept = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
ds = pydicom.dcmread(src)
for tag, vr, values in kept:
    # What the slice has (its rows, spacing, rescale) stays: it is as valid and the image needs it.
    if tag not in ds: ds.add_new(tag, vr, values if len(values) > 1 else values[0])
# Enhanced CT gives Rescale Type in the Pixel Value Transformation Sequence of its functional groups.
pvt = Dataset(); pvt.RescaleIntercept = '0'; pvt.RescaleSlope = '1'; pvt.add_new(0x00281054, 'LO', 'US')
shared = Dataset(); shared.add_new(0x00289145, 'SQ', Sequence([pvt]))
ds.add_new(0x52009229, 'SQ', Sequence([shared]))
if syntax == 'implicit':
    ds.file_meta.TransferSyntaxUID = ImplicitVRLittleEndian
    ds.is_implicit_VR = True; ds.is_little_endian = True
    ds.save_as(dst)
else:
    ds.save_as(dst)
d = pydicom.dcmread(dst)
print(json.dumps({format(t, '08x'): str(d[t].value) for t, _, _ in kept}))
`;

const READ = String.raw`
import sys, json, pydicom
d = pydicom.dcmread(sys.argv[1])
kept = json.loads(sys.argv[2])
pvt = d[0x52009229][0][0x00289145][0] if 0x52009229 in d else {}
print(json.dumps({'kept': {format(t, '08x'): str(d[t].value) for t, _, _ in kept if t in d},
  'nested': str(pvt[0x00281054].value) if 0x00281054 in pvt else None}))
`;

describe.skipIf(noPydicom !== null)('every attribute the profile keeps', () => {
  for (const syntax of ['explicit', 'implicit']) {
    it(`survives with a valid value for its dictionary VR (${syntax} VR)`, async () => {
      const kept = keptAttributes();
      // The walk finds what the profile keeps: numbers, codes (Rescale Type among them).
      expect(kept.length).toBeGreaterThan(40);
      expect(kept.map(([t]) => t)).toContain(0x00281054);
      const planted = join(fresh(syntax), 'planted.dcm');
      const before = python<Record<string, string>>(PLANT, [SLICE, planted, syntax, JSON.stringify(kept)]);
      const out = join(fresh('out'), 'out.dcm');
      writeFileSync(out, deidentifyDicom(await readDicomFile(planted), new UidMapper(), 3));
      const after = python<{ kept: Record<string, string>; nested: string | null }>(READ, [
        out,
        JSON.stringify(kept),
      ]);
      // Instance Number alone is rewritten: as the file's place in the package.
      expect(before['00200013']).toBeDefined();
      expect(after.kept).toEqual({ ...before, '00200013': '3' });
      expect(after.nested).toBe('US');
    });
  }
});

describe.skipIf(noPydicom !== null)('Rescale Type', () => {
  it('keeps only a defined term: any other text under it is removed', async () => {
    for (const [value, kept] of [
      ['HU_MOD', 'HU_MOD'],
      ['DOE JANE', null],
      ['MRN4711815', null],
    ] as const) {
      const planted = join(fresh('rescale-type'), 'planted.dcm');
      python(
        String.raw`
import sys, json, pydicom
ds = pydicom.dcmread(sys.argv[1]); ds.add_new(0x00281054, 'LO', sys.argv[3]); ds.save_as(sys.argv[2])
print(json.dumps(True))`,
        [SLICE, planted, value],
      );
      const out = join(fresh('out'), 'out.dcm');
      writeFileSync(out, deidentifyDicom(await readDicomFile(planted), new UidMapper()));
      const back = python<string | null>(
        `import sys, json, pydicom\nd = pydicom.dcmread(sys.argv[1])\nprint(json.dumps(d.get('RescaleType')))`,
        [out],
      );
      expect(back, value).toBe(kept);
    }
  });
});

describe.skipIf(noPydicom !== null)('kept numbers that could hold any number', () => {
  it('are left out, bounded or renumbered: digits of an identity reach no upload', async () => {
    const planted = join(fresh('numbers'), 'planted.dcm');
    python(
      String.raw`
import sys, json, pydicom
ds = pydicom.dcmread(sys.argv[1])
ds.SeriesNumber = '99887766'
ds.InstanceNumber = '99887766'
ds.SliceLocation = '99887766.19010203'
ds.SliceThickness = '99887766'; ds.SpacingBetweenSlices = '19010203'
ds.WindowCenter = ['99887766', '19010203']; ds.WindowWidth = ['1', '2']
ds.add_new(0x00209057, 'UL', 99887766)  # In-Stack Position Number
ds.add_new(0x00280034, 'IS', ['99887766', '19010203'])  # Pixel Aspect Ratio
ds.save_as(sys.argv[2])
print(json.dumps(True))`,
      [SLICE, planted],
    );
    const bytes = deidentifyDicom(await readDicomFile(planted), new UidMapper(), 7);
    for (const hidden of ['99887766', '19010203'])
      expect(bytes.includes(Buffer.from(hidden, 'latin1')), hidden).toBe(false);
    const le = Buffer.alloc(4);
    le.writeUInt32LE(99887766);
    expect(bytes.includes(le)).toBe(false);
    const out = join(fresh('out'), 'out.dcm');
    writeFileSync(out, bytes);
    const back = python<unknown[]>(
      String.raw`
import sys, json, pydicom
d = pydicom.dcmread(sys.argv[1])
print(json.dumps([str(d.SeriesNumber), str(d.InstanceNumber), 'SliceLocation' in d, str(d.SliceThickness),
  str(d.SpacingBetweenSlices), 'WindowCenter' in d, 'WindowWidth' in d, 0x00209057 in d,
  'PixelAspectRatio' in d, d.Rows, [str(v) for v in d.PixelSpacing]]))`,
      [out],
    );
    const spacing = python<string[]>(
      `import sys, json, pydicom\nprint(json.dumps([str(v) for v in pydicom.dcmread(sys.argv[1]).PixelSpacing]))`,
      [SLICE],
    );
    // Series Number goes out as 1 (the package's one series), Instance Number as the file's place in
    // the package; no Slice Location; thickness and spacing past 100 mm present but empty (pydicom
    // reads None); the image and its geometry stay.
    expect(back).toEqual(['1', '7', false, 'None', 'None', false, false, false, false, 256, spacing]);
  });
});
