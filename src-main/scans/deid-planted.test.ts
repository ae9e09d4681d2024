import { unzip } from './zip.test-support.js';
// De-identification against the standard's own table: a real CT slice with a distinct value planted
// in every attribute of PS3.15 Table E.1-1 goes through the app's packaging (packageSeries), and not
// one planted value may survive, while the image stays valid DICOM with its pixels intact.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src-shared/errors.js';
import { decideAction, deidDecision } from './deid-profile.js';
import { BASIC_PROFILE } from './deid-tables.js';
import { DEIDENTIFICATION_METHOD } from './deidentify.js';
import { packageSeries } from './package-series.js';
import { ScanService } from './scan-service.js';
import { FIXTURES, phantomBySlice, pydicomMissing, python, tempFolders } from './scans.test-support.js';

const here = dirname(fileURLToPath(import.meta.url));
const PLANT_SCRIPT = join(here, 'plant-identifiers.test-support.py');
const { root, fresh } = tempFolders('s2m-deid-planted-');

const tableJson = join(root, 'table.json');
writeFileSync(tableJson, JSON.stringify(BASIC_PROFILE));

interface Planted {
  /** [tag, vr, value as planted] of every top-level plant. */
  planted: [number, string, string | number][];
  /** Values whose bytes must not appear anywhere in the package. */
  searchable: string[];
}

/** Runs the planting script on a real slice; extra keyword=value pairs are set last. */
function plantInto(slice: string, out: string, extra: string[] = []): Planted {
  return python<Planted>(
    `import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')`,
    [PLANT_SCRIPT, tableJson, slice, out, ...extra],
  );
}

function found(bytes: Buffer, values: string[]): string[] {
  return values.filter(
    (v) => bytes.includes(Buffer.from(v, 'latin1')) || bytes.includes(Buffer.from(v, 'utf16le')),
  );
}

describe('the profile is Table E.1-1', () => {
  it('has every row of the table, with a decision for each', () => {
    expect(BASIC_PROFILE.length).toBeGreaterThan(600);
    for (const [tag, action] of BASIC_PROFILE) expect(deidDecision(tag)).toBe(decideAction(action));
    // The values that a hand-typed list let through (issue 13).
    const byName = new Map(BASIC_PROFILE.map(([tag, , name]) => [name, tag]));
    for (const name of [
      'Date of Secondary Capture',
      'Time of Secondary Capture',
      'Start Acquisition DateTime',
      'Study Verified Date',
      'Scheduled Study Start Date',
      'Scheduled Procedure Step ID',
    ])
      expect(deidDecision(byName.get(name)!), name).toBe('remove');
  });

  it('chooses the strictest of combined actions', () => {
    expect(decideAction('X/Z/U*')).toBe('remove');
    expect(decideAction('X/Z/D')).toBe('remove');
    expect(decideAction('Z/D')).toBe('empty');
    expect(decideAction('D')).toBe('dummy');
    expect(decideAction('U')).toBe('uid');
    expect(decideAction('K')).toBe('keep');
  });

  it('keeps what the image needs, removes private, unknown and free-text attributes', () => {
    expect(deidDecision(0x7fe00010)).toBe('keep'); // Pixel Data
    expect(deidDecision(0x00200032)).toBe('keep'); // Image Position (Patient)
    expect(deidDecision(0x00281053)).toBe('keep'); // Rescale Slope
    expect(deidDecision(0x52009230)).toBe('keep'); // Per-frame Functional Groups Sequence (filtered)
    expect(deidDecision(0x00080016)).toBe('uid'); // SOP Class UID: a standard UID, kept as it is
    expect(deidDecision(0x00110010)).toBe('remove'); // private creator
    expect(deidDecision(0x00420abc)).toBe('remove'); // unknown to the dictionary
    expect(deidDecision(0x00181210)).toBe('remove'); // Convolution Kernel: text the table does not list
    expect(deidDecision(0x00280301)).toBe('keep'); // Burned In Annotation: a code string
  });
});

const noPydicom = pydicomMissing();

describe.skipIf(noPydicom !== null)(
  `values planted in every attribute of Table E.1-1${noPydicom ? ` (skipped: ${noPydicom})` : ''}`,
  () => {
    it('none survives packaging, and the image is still valid DICOM with the same pixels', async () => {
      const slices = phantomBySlice().slice(60, 62);
      const dir = fresh('planted');
      const plants = slices.map((s, i) => plantInto(s, join(dir, `planted-${i}.dcm`)));
      const searchable = [...new Set(plants.flatMap((p) => p.searchable))];
      expect(plants[0]!.planted.length).toBeGreaterThan(600);
      // The test means something only if the values are in the input.
      const input = readFileSync(join(dir, 'planted-0.dcm'));
      expect(found(input, plants[0]!.searchable)).toEqual(plants[0]!.searchable);

      const files = readdirSync(dir).map((f) => ({ path: join(dir, f), size: 0 }));
      const pkg = await packageSeries(files, false, 'scan', { deidentify: true, outDir: fresh('out') });
      expect(pkg.extension).toBe('.zip');
      const zipBytes = readFileSync(pkg.path);
      const entries = await unzip(zipBytes);
      expect(entries.size).toBe(2);
      // The raw package (entries are deflated) and every unzipped entry.
      expect(found(zipBytes, searchable)).toEqual([]);
      const unzipped = fresh('unzipped');
      for (const [name, bytes] of entries) {
        expect(found(bytes, searchable), name).toEqual([]);
        writeFileSync(join(unzipped, name), bytes);
      }

      // pydicom reads every output; no planted value is left at the top level, none in any
      // sequence, no private element anywhere; the pixels are those of the original slice.
      const check = python<{
        files: number;
        leftovers: string[];
        privateTags: number;
        removed: string[];
        methodLengths: number[];
        methodCodes: string[];
        pixelsEqual: boolean;
        studies: number;
        series: number;
        instances: string[];
      }>(
        String.raw`
import sys, json, glob, pydicom
planted = json.loads(open(sys.argv[2]).read())
outs = [pydicom.dcmread(f) for f in sorted(glob.glob(sys.argv[1] + '/*.dcm'))]
origs = {round(float(o.ImagePositionPatient[2]), 3): o for o in (pydicom.dcmread(f) for f in sys.argv[3:])}
leftovers, private = [], 0
for d in outs:
    for tag, vr, value in planted:
        if tag in d and d[tag].VR != 'SQ' and d[tag].value not in (None, '', b'') :
            v = d[tag].value
            v = v.decode('latin1') if isinstance(v, bytes) else v
            if str(v) == str(value) or (isinstance(v, (int, float)) and v == value):
                leftovers.append('%08X=%s' % (tag, v))
    def walk(ds):
        global private
        for e in ds:
            if e.tag.is_private: private += 1
            if e.VR == 'SQ':
                for item in e.value: walk(item)
    walk(d)
same = all((d.pixel_array == origs[round(float(d.ImagePositionPatient[2]), 3)].pixel_array).all() for d in outs)
print(json.dumps({'files': len(outs), 'leftovers': leftovers, 'privateTags': private,
  'removed': [d.PatientIdentityRemoved for d in outs], 'methodLengths': [len(d.DeidentificationMethod) for d in outs],
  'methodCodes': [d.DeidentificationMethodCodeSequence[0].CodeValue for d in outs], 'pixelsEqual': bool(same),
  'studies': len({d.StudyInstanceUID for d in outs}), 'series': len({d.SeriesInstanceUID for d in outs}),
  'instances': [str(d.InstanceNumber) for d in outs]}))
`,
        [unzipped, writeJson('planted.json', plants[0]!.planted), ...slices],
      );
      expect(check).toEqual({
        files: 2,
        leftovers: [],
        privateTags: 0,
        removed: ['YES', 'YES'],
        methodLengths: Array(2).fill(DEIDENTIFICATION_METHOD.length),
        methodCodes: ['113100', '113100'],
        pixelsEqual: true,
        studies: 1,
        series: 1,
        // Instance Number is each file's place in the package, whatever number was planted in it.
        instances: ['1', '2'],
      });
      expect(DEIDENTIFICATION_METHOD.length).toBeLessThanOrEqual(64);
    }, 180_000); // several pydicom runs over ~700 attributes each: slow on a loaded machine

    it('keeps no value hidden in what is kept by its tag: codes, class UIDs, display tables', async () => {
      // Found by an audit: each was copied byte for byte into every slice of the package.
      const dir = fresh('hidden');
      const hidden = [
        'DOEXJOHNATHAN',
        'MRN4711815',
        '19650312',
        'DOEX^JOHNATHAN',
        'ISO_IR 192',
        'LUTSECRET',
        'FLOATSECRET',
      ];
      python(
        String.raw`
import sys, pydicom
from pydicom.dataset import Dataset
from pydicom.sequence import Sequence
for i, f in enumerate(sys.argv[2:]):
    ds = pydicom.dcmread(f)
    ds.SpecificCharacterSet = 'ISO_IR 192'
    # A valid orientation on one slice (kept), a name and a record number on the other (removed).
    ds.add_new(0x00200020, 'CS', 'L\P' if i == 0 else 'DOEXJOHNATHAN\MRN4711815')
    ds.add_new(0x00080062, 'UI', '1.2.840.10008.DOEX^JOHNATHAN')
    private_class = '1.2.840.113619.4.19650312.4711815'
    ds.SOPClassUID = private_class
    ds.file_meta.MediaStorageSOPClassUID = private_class
    lut = Dataset(); lut.LUTDescriptor = [6, 0, 16]; lut.add_new(0x00283006, 'OW', b'LUTSECRET\0\0\0')
    ds.VOILUTSequence = Sequence([lut])
    ds.add_new(0x7FE00008, 'OF', b'FLOATSECRET\0')
    ds.save_as('%s/h%d.dcm' % (sys.argv[1], i), write_like_original=False)
print('[]')`,
        [dir, ...phantomBySlice().slice(64, 66)],
      );
      const files = readdirSync(dir).map((f) => ({ path: join(dir, f), size: 0 }));
      expect(found(readFileSync(files[1]!.path), hidden)).toEqual(hidden);
      const pkg = await packageSeries(files, false, 'scan', {
        deidentify: true,
        outDir: fresh('hidden-out'),
      });
      const entries = await unzip(readFileSync(pkg.path));
      const out = fresh('hidden-unzipped');
      for (const [name, bytes] of entries) {
        expect(found(bytes, hidden), name).toEqual([]);
        writeFileSync(join(out, name), bytes);
      }
      const check = python<{ orientation: (string | null)[]; classAgrees: boolean[]; classUid: string[] }>(
        String.raw`
import sys, json, glob, pydicom
outs = [pydicom.dcmread(f) for f in sorted(glob.glob(sys.argv[1] + '/*.dcm'))]
print(json.dumps({
  'orientation': sorted([('\\'.join(d.PatientOrientation) if 'PatientOrientation' in d else None) for d in outs], key=str),
  'classAgrees': [d.file_meta.MediaStorageSOPClassUID == d.SOPClassUID for d in outs],
  'classUid': sorted({str(d.SOPClassUID)[:5] for d in outs}),
}))`,
        [out],
      );
      // The meta header names the same (replaced) class as the data set: before, it kept the original.
      expect(check).toEqual({ orientation: ['L\\P', null], classAgrees: [true, true], classUid: ['2.25.'] });
    });

    it('refuses a series with burned-in annotation unless the user accepts it', async () => {
      const slice = phantomBySlice()[70]!;
      const dir = fresh('burned');
      plantInto(slice, join(dir, 'burned.dcm'), ['BurnedInAnnotation=YES']);
      const files = [{ path: join(dir, 'burned.dcm'), size: 0 }];
      const outDir = fresh('burned-out');
      const refused = await packageSeries(files, false, 'scan', { deidentify: true, outDir }).catch(
        (e: unknown) => e,
      );
      expect(isAppError(refused) && refused.code).toBe('burned-in-annotation');
      expect((refused as Error).message).toMatch(/burned in|in the pixels/i);
      expect(readdirSync(outDir)).toEqual([]); // nothing half-written is left
      const accepted = await packageSeries(files, false, 'scan', {
        deidentify: true,
        acceptBurnedIn: true,
        outDir,
      });
      const entries = await unzip(readFileSync(accepted.path));
      expect(entries.size).toBe(1);
      // Not de-identifying sends the scan as it is: nothing to check there.
      await expect(
        packageSeries(files, false, 'plain', { deidentify: false, outDir: fresh('plain') }),
      ).resolves.toMatchObject({ extension: '.zip' });
    });

    it('says so in the series summary, and the app refuses the job until it is accepted', async () => {
      const dir = fresh('burned-series');
      // Only the flag this time: planted nonsense (geometry-free dummy values) is not the point here.
      python(
        `import sys, pydicom
for i, f in enumerate(sys.argv[2:]):
    ds = pydicom.dcmread(f); ds.BurnedInAnnotation = 'YES'; ds.save_as('%s/b%d.dcm' % (sys.argv[1], i))
print('[]')`,
        [dir, ...phantomBySlice().slice(80, 84)],
      );
      const service = new ScanService({ tempDir: fresh('work') });
      try {
        const [series] = (await service.intake([dir])).series;
        expect(series?.burnedInAnnotation).toMatch(/patient data in the pixels/);
        const refused = await service
          .packageForUpload(series!.id, { deidentify: true, outDir: fresh('svc') })
          .catch((e: unknown) => e);
        expect(isAppError(refused) && refused.code).toBe('burned-in-annotation');
        const ok = await service.packageForUpload(series!.id, {
          deidentify: true,
          acceptBurnedIn: true,
          outDir: fresh('svc-ok'),
        });
        expect((await unzip(readFileSync(ok.path))).size).toBe(4);
      } finally {
        await service.dispose();
      }
      // A plain CT with no flag is not marked.
      const plain = new ScanService({ tempDir: fresh('work') });
      try {
        const [series] = (await plain.intake(phantomBySlice().slice(80, 84))).series;
        expect(series?.burnedInAnnotation).toBeUndefined();
      } finally {
        await plain.dispose();
      }
    });

    it('treats a real secondary capture as burned-in, unless it says otherwise', async () => {
      // An RGB screenshot stored as DICOM (pydicom-data): no Burned In Annotation attribute at all.
      const screenshot = join(FIXTURES, 'bad', 'secondary-capture-rgb.dcm');
      const files = [{ path: screenshot, size: 0 }];
      const refused = await packageSeries(files, true, 'sc', {
        deidentify: true,
        outDir: fresh('sc-out'),
      }).catch((e: unknown) => e);
      expect(isAppError(refused) && refused.code).toBe('burned-in-annotation');
      expect((refused as Error).message).toMatch(/secondary capture/);
      await expect(
        packageSeries(files, true, 'sc', { deidentify: true, acceptBurnedIn: true, outDir: fresh('sc-ok') }),
      ).resolves.toMatchObject({ extension: '.dcm' });
      // The same file saying NO is believed.
      const dir = fresh('sc-no');
      python(
        `import sys, pydicom
ds = pydicom.dcmread(sys.argv[1]); ds.BurnedInAnnotation = 'NO'; ds.save_as(sys.argv[2])
print('[]')`,
        [screenshot, join(dir, 'sc.dcm')],
      );
      await expect(
        packageSeries([{ path: join(dir, 'sc.dcm'), size: 0 }], true, 'sc', {
          deidentify: true,
          outDir: fresh('sc-no-out'),
        }),
      ).resolves.toMatchObject({ extension: '.dcm' });
    });
  },
);

function writeJson(name: string, value: unknown): string {
  const path = join(fresh('json'), name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}
