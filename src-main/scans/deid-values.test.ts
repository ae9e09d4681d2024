// Kept attributes are kept for what their tag says they hold: real phantom slices with text stored
// under number and code tags (a wrong VR, UN, an unknown VR, codes that are words, bad lengths),
// UIDs under the DICOM root, and the signs of burned-in text the Burned In Annotation flag misses.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src-shared/errors.js';
import { readDicomFile } from './dicom-file.js';
import { fitsVm } from './deid-values.js';
import { UidMapper, deidentifyDicom } from './deidentify.js';
import { packageSeries } from './package-series.js';
import { phantomBySlice, pydicomMissing, python, tempFolders } from './scans.test-support.js';

const { fresh } = tempFolders('s2m-deid-values-');
const noPydicom = pydicomMissing();

/** pydicom plants values in a phantom slice; raw elements go in as bytes (any VR, any length). */
const CRAFT = String.raw`
import sys, struct, json, pydicom
from pydicom.dataset import Dataset
from pydicom.sequence import Sequence
mode, src, dst = sys.argv[1:4]
ds = pydicom.dcmread(src)
LONG = (b'OB', b'OW', b'UN', b'UT', b'UC', b'UR', b'SQ', b'OF', b'OD', b'OL', b'OV', b'SV', b'UV')
def raw(tag, vr, value):
    vr = vr.encode()
    if vr in LONG: return struct.pack('<HH2sHI', tag >> 16, tag & 0xffff, vr, 0, len(value)) + value
    return struct.pack('<HH2sH', tag >> 16, tag & 0xffff, vr, len(value)) + value
elems = []
if mode == 'values':
    ds.add_new(0x00080008, 'CS', ['ORIGINAL', 'PRIMARY', 'LKWVR08 DOE'])
    ds.add_new(0x00101022, 'DS', '47.4747')
    ds.add_new(0x00080070, 'LO', 'LKWVR09 Dr DOE practice')
    ds.add_new(0x00081090, 'LO', 'LKWVR10 DOE^JANE')
    item = lambda n: Dataset()
    deep = Dataset(); deep.add_new(0x00180015, 'CS', 'LKWVR14')
    for _ in range(3):
        outer = Dataset(); outer.add_new(0x0040a370, 'SQ', Sequence([deep])); deep = outer
    ds.add_new(0x0040a370, 'SQ', Sequence([deep]))
    elems = [raw(0x00180015, 'UT', b'LKWVR01 DOE^JANE born 19470313'), raw(0x00180022, 'CS', b'LKWVR04 DOE JANE'),
             raw(0x00180060, 'LO', b'LKWVR02 DOE^JANE'), raw(0x00180090, 'DS', b'LKWVR05 '),
             raw(0x00181151, 'UN', b'LKWVR03 DOE^JANE'), raw(0x00189345, 'UN', b'LKWVR06 DOE^JANE'),
             raw(0x00280106, 'OB', b'LKWVR07 SMALLEST'), raw(0x00280120, 'US', b'\x00\x00LKWVR11 DOE^JANE '),
             raw(0x00281201, 'OW', b'LKWVR12 palette LUT DOE^JANE'), raw(0x00189306, 'XX', b'LKWVR13 DOE^JANE')]
elif mode == 'bad-rows':
    del ds[0x00280010]
    elems = [raw(0x00280010, 'LO', b'512 LKROWS ')]
elif mode == 'long-ds':
    del ds[0x00200032]
    elems = [raw(0x00200032, 'DS', b'-125.123456789012\\-125.123456789012\\0.000000196503125 ')]
elif mode == 'bad-slope':
    del ds[0x00281053]
    elems = [raw(0x00281053, 'DS', b'1 LKSLOPE ')]
elif mode == 'uids':
    ds.StudyInstanceUID = '1.2.840.10008.999.19470313.4747'
    ds.FrameOfReferenceUID = '1.2.840.10008.999.4747.2'
    ds.add_new(0x0040a124, 'UI', '1.2.840.10008.1234567.19470313')
    ref = Dataset(); ref.ReferencedSOPClassUID = ds.SOPClassUID; ref.ReferencedSOPInstanceUID = '1.2.840.10008.77.19470313'
    ds.add_new(0x00081140, 'SQ', Sequence([ref]))
elif mode == 'recognizable':
    ds.add_new(0x00280302, 'CS', 'YES')
elif mode == 'screen-save':
    ds.ImageType = ['DERIVED', 'SECONDARY', 'SCREEN SAVE']
elif mode in ('PX', 'IO', 'XC', 'OP', 'GM', 'SM'):
    ds.Modality = mode
elif mode == 'functional-group':
    fg = Dataset(); fg.add_new(0x00280301, 'CS', 'YES')
    ds.add_new(0x52009229, 'SQ', Sequence([fg]))
ds.save_as(dst)
if elems:
    b = open(dst, 'rb').read()
    k = b.index(struct.pack('<HH', 0x0028, 0x0002) + b'US')
    open(dst, 'wb').write(b[:k] + b''.join(elems) + b[k:])
print(json.dumps(True))
`;

function craft(mode: string): string {
  const dst = join(fresh(mode), `${mode}.dcm`);
  python(CRAFT, [mode, phantomBySlice()[70]!, dst]);
  return dst;
}

async function deidentified(path: string): Promise<Buffer> {
  return deidentifyDicom(await readDicomFile(path), new UidMapper());
}

const has = (b: Buffer, text: string): boolean => b.includes(Buffer.from(text, 'latin1'));

describe.skipIf(noPydicom !== null)('kept values fit their VR', () => {
  it('removes text stored under number and code tags, whatever VR it is stored as', async () => {
    const planted = craft('values');
    expect(has(readFileSync(planted), 'LKWVR13')).toBe(true);
    const out = await deidentified(planted);
    for (const marker of ['LKWVR', '47.4747', 'UNMODIFIED']) expect(has(out, marker), marker).toBe(false);
    const path = join(fresh('out'), 'out.dcm');
    writeFileSync(path, out);
    const kept = python<Record<string, unknown>>(
      String.raw`
import sys, json, pydicom
d = pydicom.dcmread(sys.argv[1])
print(json.dumps({'type': list(d.ImageType), 'rows': d.Rows, 'kvp': 'KVP' in d, 'ltim': d.get('LongitudinalTemporalInformationModified'),
  'method': d.get('DeidentificationMethod'), 'removed': d.get('PatientIdentityRemoved'), 'bmi': 'PatientBodyMassIndex' in d}))`,
      [path],
    );
    expect(kept).toEqual({
      type: ['ORIGINAL', 'PRIMARY'],
      rows: 512,
      kvp: false,
      ltim: 'REMOVED',
      method: expect.stringMatching(/Basic Application Confidentiality Profile/) as unknown,
      removed: 'YES',
      bmi: false,
    });
  });

  it('refuses a file whose needed pixel description is not a valid value, rather than send it broken', async () => {
    const rows = await deidentified(craft('bad-rows')).catch((x: unknown) => x);
    expect(isAppError(rows) && rows.code).toBe('bad-input');
    expect((rows as Error).message).toMatch(
      /not sent de-identified: one of its files has no valid image size/,
    );
    const slope = await deidentified(craft('bad-slope')).catch((x: unknown) => x);
    expect(isAppError(slope) && slope.code).toBe('bad-input');
    expect((slope as Error).message).toMatch(
      /one of its files has a Rescale Slope that is not a valid value/,
    );
  });

  // A review: positions written with 17 characters (pydicom and the app read them) made the
  // de-identified package fail after the job had started; without de-identification they were sent.
  it('writes a needed number longer than DS allows again within 16 characters, to the same value', async () => {
    const path = join(fresh('long-ds-out'), 'out.dcm');
    writeFileSync(path, await deidentified(craft('long-ds')));
    const read = python<{ raw: string; values: number[] }>(
      String.raw`
import sys, json, pydicom
d = pydicom.dcmread(sys.argv[1])
print(json.dumps({'raw': d.get_item(0x00200032).value.decode('latin1'), 'values': [float(v) for v in d.ImagePositionPatient]}))`,
      [path],
    );
    expect(
      read.raw
        .trim()
        .split('\\')
        .every((v) => v.length <= 16),
    ).toBe(true);
    const expected = [-125.123456789012, -125.123456789012, 0.000000196503125];
    read.values.forEach((v, i) => expect(Math.abs(v - expected[i]!)).toBeLessThan(1e-9));
  });

  it('replaces UIDs under the DICOM root unless they name a class', async () => {
    const planted = craft('uids');
    const out = await deidentified(planted);
    expect(has(out, '19470313')).toBe(false);
    expect(has(out, '1.2.840.10008.999')).toBe(false);
    // SOP Class UID and Referenced SOP Class UID stay: they name CT Image Storage.
    expect(has(out, '1.2.840.10008.5.1.4.1.1.2')).toBe(true);
  });
});

describe.skipIf(noPydicom !== null)('images that may show patient data need the user to accept them', () => {
  const cases = ['recognizable', 'screen-save', 'functional-group', 'PX', 'IO', 'XC', 'OP', 'GM', 'SM'];
  for (const mode of cases) {
    it(`refuses ${mode} unless accepted`, async () => {
      const file = craft(mode);
      const files = [{ path: file, size: readFileSync(file).length }];
      const outDir = fresh('pkg');
      const e = await packageSeries(files, false, 'scan', { deidentify: true, outDir }).catch(
        (x: unknown) => x,
      );
      expect(isAppError(e) && e.code).toBe('burned-in-annotation');
      expect((e as Error).message).toMatch(
        /^This series was not sent de-identified: .*in the pixels|recognisably/,
      );
      const ok = await packageSeries(files, false, 'scan', {
        deidentify: true,
        acceptBurnedIn: true,
        outDir,
      });
      expect(ok.extension).toBe('.zip');
    });
  }
});

describe('value multiplicity of binary numbers', () => {
  it('reads every form of VM the dictionary uses', () => {
    expect([3, 4].map((n) => fitsVm(n, '4'))).toEqual([false, true]);
    expect([0, 1, 2, 3].map((n) => fitsVm(n, '1-2'))).toEqual([false, true, true, false]);
    expect([1, 2, 9].map((n) => fitsVm(n, '2-n'))).toEqual([false, true, true]);
    expect([2, 3, 4, 6].map((n) => fitsVm(n, '2-2n'))).toEqual([true, false, true, true]);
    expect(fitsVm(1000, undefined)).toBe(true);
  });
});
