import { unzip } from './zip.test-support.js';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import dicomParser from 'dicom-parser';
import { describe, expect, it } from 'vitest';
import { readDicomFile } from './dicom-file.js';
import { UidMapper, deidentifyDicom } from './deidentify.js';
import { ScanService } from './scan-service.js';
import { FIXTURES, phantomFiles, pydicomMissing, python, tempFolders } from './scans.test-support.js';
import { readVolume } from './volume-reader.js';

const { fresh } = tempFolders('s2m-deid-');

/**
 * Asserts that none of the values occurs in the bytes, as Latin-1 or UTF-8 text. The UIDs that
 * de-identification made (2.25.<digits>, from a salt drawn per run) are blanked first: a searched
 * value of a few digits turns up inside one by chance (for a 6-digit value, about one run in a few
 * hundred), which is no leak. A made UID that equals a searched value is kept, and found.
 */
function expectAbsent(bytes: Buffer, values: string[], where: string): void {
  const text = bytes
    .toString('latin1')
    .replace(/2\.25\.\d+/g, (uid) => (values.includes(uid) ? uid : '#'.repeat(uid.length)));
  bytes = Buffer.from(text, 'latin1');
  for (const v of values) {
    expect(bytes.includes(Buffer.from(v, 'latin1')), `"${v}" found in ${where}`).toBe(false);
    expect(bytes.includes(Buffer.from(v, 'utf8')), `"${v}" found in ${where}`).toBe(false);
  }
}

async function packageDeidentified(
  dir: string,
  gzip = false,
): Promise<{ path: string; extension: string; service: ScanService }> {
  const service = new ScanService({ tempDir: fresh('work') });
  const r = await service.intake([dir]);
  expect(r.series).toHaveLength(1);
  const out = await service.packageForUpload(r.series[0]!.id, {
    deidentify: true,
    gzip,
    outDir: fresh('out'),
  });
  return { ...out, service };
}

const noPydicom = pydicomMissing();

describe.skipIf(noPydicom !== null)(
  `de-identification of identifying data put in by pydicom${noPydicom ? ` (skipped: ${noPydicom})` : ''}`,
  () => {
    // Identifying values written into copies of phantom slices, at the top level, in a private
    // block and inside sequences (one removed whole, one kept and filtered).
    const PHI = {
      name: 'Doe^Jane^Quincy',
      id: 'MRN5550123',
      birth: '19610417',
      address: '12 Harley Street, London',
      otherId: 'ALT778899',
      institution: 'St Example Dental Clinic',
      institutionAddress: '1 Clinic Road, Springfield',
      referring: 'Moriarty^James',
      performing: 'Watson^John',
      operator: 'Hudson^Martha',
      accession: 'ACC20240917',
      comments: 'Patient Jane Doe is anxious',
      privateNote: 'Jane Doe private note',
      requested: 'CBCT for Jane Doe',
      nestedName: 'Nested^Person^Name',
      station: 'STATION-ROOM-7',
    };
    const SCRIPT = String.raw`
import sys, json, pydicom
from pydicom.dataset import Dataset
from pydicom.sequence import Sequence
phi = json.loads(sys.argv[1]); out = sys.argv[2]; files = sys.argv[3:]
uids = []
for i, f in enumerate(files):
    ds = pydicom.dcmread(f)
    ds.PatientName = phi['name']; ds.PatientID = phi['id']; ds.PatientBirthDate = phi['birth']
    ds.PatientAddress = phi['address']; ds.OtherPatientIDs = phi['otherId']
    ds.InstitutionName = phi['institution']; ds.InstitutionAddress = phi['institutionAddress']
    ds.ReferringPhysicianName = phi['referring']; ds.PerformingPhysicianName = phi['performing']
    ds.OperatorsName = phi['operator']; ds.AccessionNumber = phi['accession']; ds.ImageComments = phi['comments']
    ds.StationName = phi['station']
    block = ds.private_block(0x0011, 'ACME CLINIC', create=True); block.add_new(0x01, 'LO', phi['privateNote'])
    req = Dataset(); req.RequestedProcedureDescription = phi['requested']; ds.RequestAttributesSequence = Sequence([req])
    src = Dataset(); src.ReferencedSOPClassUID = ds.SOPClassUID; src.ReferencedSOPInstanceUID = ds.SOPInstanceUID
    src.PatientName = phi['nestedName']; ds.SourceImageSequence = Sequence([src])
    uids += [ds.SOPInstanceUID, ds.StudyInstanceUID, ds.SeriesInstanceUID, ds.FrameOfReferenceUID]
    ds.save_as(f'{out}/slice{i:03d}.dcm', write_like_original=False)
print(json.dumps(sorted(set(str(u) for u in uids))))
`;

    function makePhiSeries(count: number): { dir: string; uids: string[] } {
      const dir = fresh('phi');
      const uids = python<string[]>(SCRIPT, [
        JSON.stringify(PHI),
        dir,
        ...phantomFiles().slice(40, 40 + count),
      ]);
      return { dir, uids };
    }

    it('leaves no identifying value of the original anywhere in the packaged zip', async () => {
      const { dir, uids } = makePhiSeries(12);
      const original = readFileSync(join(dir, 'slice000.dcm'));
      const values = [...Object.values(PHI), ...uids, 'PLASTIC', 'NOTTINGHAM', '336067', 'ACME CLINIC'];
      // The test means something only if the values were there to begin with.
      for (const v of [PHI.name, PHI.privateNote, PHI.nestedName, PHI.requested, uids[0]!])
        expect(original.includes(v)).toBe(true);

      const { path, extension, service } = await packageDeidentified(dir);
      expect(extension).toBe('.zip');
      const zipBytes = readFileSync(path);
      expectAbsent(zipBytes, values, 'the zip file');
      const entries = await unzip(zipBytes);
      expect(entries.size).toBe(12);
      for (const [name, bytes] of entries) {
        expect(name).toMatch(/^slice-\d{5}\.dcm$/);
        expectAbsent(bytes, values, name);
      }
      await service.dispose();
    });

    it('keeps geometry and pixel data intact, and pydicom reads the copies as de-identified', async () => {
      const { dir } = makePhiSeries(6);
      const { path, service } = await packageDeidentified(dir);
      const outDir = fresh('unzipped');
      const written: string[] = [];
      for (const [name, bytes] of await unzip(readFileSync(path))) {
        writeFileSync(join(outDir, name), bytes);
        written.push(join(outDir, name));
      }
      const before = await readVolume(phantomFiles().slice(40, 46));
      const after = await readVolume(written);
      expect({ ...after, data: undefined }).toEqual({ ...before, data: undefined });
      expect(Buffer.from(after.data.buffer).equals(Buffer.from(before.data.buffer))).toBe(true);

      const ref = python<{
        names: string[];
        removed: string[];
        institution: boolean;
        private: boolean;
        seq: boolean;
        series: number;
        study: number;
        pixelsEqual: boolean;
        ts: string[];
      }>(
        String.raw`
import sys, json, pydicom, glob
outs = sorted(glob.glob(sys.argv[1] + '/*.dcm'))
dss = [pydicom.dcmread(f) for f in outs]
origs = {tuple(round(float(v), 3) for v in o.ImagePositionPatient): o for o in (pydicom.dcmread(f) for f in sys.argv[2:])}
same = all((d.pixel_array == origs[tuple(round(float(v), 3) for v in d.ImagePositionPatient)].pixel_array).all() for d in dss)
print(json.dumps({'names': [str(d.PatientName) for d in dss], 'removed': [d.PatientIdentityRemoved for d in dss],
  'institution': any('InstitutionName' in d for d in dss), 'private': any(e.tag.is_private for d in dss for e in d),
  'seq': any('RequestAttributesSequence' in d for d in dss), 'series': len({d.SeriesInstanceUID for d in dss}),
  'study': len({d.StudyInstanceUID for d in dss}), 'pixelsEqual': bool(same), 'ts': sorted({str(d.file_meta.TransferSyntaxUID) for d in dss})}))
`,
        [outDir, ...phantomFiles().slice(40, 46)],
      );
      expect(ref).toEqual({
        names: Array(6).fill(''),
        removed: Array(6).fill('YES'),
        institution: false,
        private: false,
        seq: false,
        series: 1, // new UIDs, but one series of one study still
        study: 1,
        pixelsEqual: true,
        ts: ['1.2.840.10008.1.2.1'],
      });
      await service.dispose();
    });

    it('also de-identifies through gzip (.zip.gz)', async () => {
      const { dir, uids } = makePhiSeries(3);
      const { path, extension, service } = await packageDeidentified(dir, true);
      expect(extension).toBe('.zip.gz');
      const zip = gunzipSync(readFileSync(path));
      // Entries are stored in a gzipped zip, so the raw zip shows every byte of every slice.
      expectAbsent(zip, [...Object.values(PHI), ...uids], 'the unzipped package');
      expect((await unzip(zip)).size).toBe(3);
      await service.dispose();
    });
  },
);

describe('de-identification of the fixtures as they are', () => {
  it('removes what identifies the phantom scan, in any transfer syntax, keeping the images', async () => {
    for (const file of [
      phantomFiles()[0]!,
      join(FIXTURES, 'transfer-syntax', 'ct-512-implicit-le.dcm'),
      join(FIXTURES, 'transfer-syntax', 'ct-512-explicit-be.dcm'),
      join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm'),
      join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-rle.dcm'),
      join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-jpegll70-fragmented-nobot.dcm'),
    ]) {
      const parsed = await readDicomFile(file);
      const ds = parsed.dataSet;
      const identifying = [
        'x00100010',
        'x00100020',
        'x00080080',
        'x00080081',
        'x00181000',
        'x0020000d',
        'x0020000e',
        'x00080018',
      ]
        .map((t) => (ds.string(t) ?? '').trim())
        .filter((v) => v.length >= 4);
      expect(identifying.length, file).toBeGreaterThan(2);
      const out = deidentifyDicom(parsed, new UidMapper());
      // Compressed pixel data may hold any byte string by chance ("0010", "123456" do occur in the
      // RLE frames), so the header part is searched here; the test above searches whole files.
      const pixelsAt = dicomParser.parseDicom(out, { untilTag: 'x7fe00010' }).elements.x7fe00010!.dataOffset;
      // The new UIDs are 36 random digits, where a short id such as "0010" turns up by chance; they
      // are blanked before searching (the original UIDs are among the values that must be absent).
      const header = Buffer.from(
        out
          .subarray(0, pixelsAt)
          .toString('latin1')
          .replace(/2\.25\.\d+/g, (uid) => ' '.repeat(uid.length)),
        'latin1',
      );
      expectAbsent(header, identifying, file);
      const copy = join(fresh('copy'), 'x.dcm');
      writeFileSync(copy, out);
      const before = await readVolume([file]);
      const after = await readVolume([copy]);
      expect(after.dims).toEqual(before.dims);
      expect(after.origin).toEqual(before.origin);
      expect(Buffer.from(after.data.buffer).equals(Buffer.from(before.data.buffer)), file).toBe(true);
    }
  });

  it('packages a multi-frame file as a single de-identified .dcm', async () => {
    const dir = fresh('mf');
    copyFileSync(join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm'), join(dir, 'scan.dcm'));
    const { path, extension, service } = await packageDeidentified(dir);
    expect(extension).toBe('.dcm');
    const v = await readVolume([path]);
    expect(v.dims).toEqual([512, 512, 2]);
    const parsed = await readDicomFile(path);
    expect(parsed.dataSet.string('x00120062')).toBe('YES');
    await service.dispose();
  });
});
