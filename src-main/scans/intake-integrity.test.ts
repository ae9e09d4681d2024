// A series is vouched for only when all of it is there and all of it is one scan: a damaged slice,
// a second image under one slice's UID, or slices of another patient make it unusable, in words.
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import dicomParser from 'dicom-parser';
import { describe, expect, it } from 'vitest';
import type { IntakeResult, SeriesSummary } from '../../src-shared/scans.js';
import { isUsable } from '../../src-shared/series-usable.js';
import { intake } from './intake.js';
import { summarizeSeries } from './series-summary.js';
import {
  FIXTURES,
  patchElement,
  pydicomMissing,
  python,
  sameLength,
  tempFolders,
} from './scans.test-support.js';
import { readSeriesHeaders } from './volume-reader.js';

const { fresh } = tempFolders('s2m-integrity-');
const CRANIUM = join(FIXTURES, 'ct-human-cranium-teeth');

async function run(paths: string[]): Promise<IntakeResult> {
  return (await intake(paths, { tempDir: fresh('work') })).result;
}

/** A copy of the 108-slice cranium CT (slice001.dcm ... slice108.dcm, in slice order) to change. */
function craniumCopy(name: string): string {
  const dir = fresh(name);
  for (const f of readdirSync(CRANIUM)) copyFileSync(join(CRANIUM, f), join(dir, f));
  return dir;
}

const codes = (s: SeriesSummary): string[] => s.problems.map((p) => p.code);

/** Where the Series Instance UID's value ends in a file. */
function seriesUidEnd(bytes: Buffer): number {
  const el = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' }).elements.x0020000e!;
  return el.dataOffset + el.length;
}

describe('a damaged file of a series', () => {
  it('makes its series unusable when its header still names the series, saying which file and why', async () => {
    const dir = craniumCopy('damaged');
    const bytes = readFileSync(join(dir, 'slice050.dcm'));
    // Cut off in its header, past the Series Instance UID: the file still says whose slice it is.
    writeFileSync(join(dir, 'slice050.dcm'), bytes.subarray(0, seriesUidEnd(bytes) + 200));
    const r = await run([dir]);
    const s = r.series[0]!;
    expect(s.slices).toBe(107);
    expect(s.problems.find((p) => p.code === 'damaged-files')).toEqual({
      severity: 'error',
      code: 'damaged-files',
      message:
        '1 file of this series is damaged: slice050.dcm (its header is cut off or has wrong lengths). The scan is not complete without it; export the series again.',
      file: join(dir, 'slice050.dcm'),
    });
    expect(isUsable(s)).toBe(false);
    // The drop still lists the file it left out.
    expect(r.problems.find((p) => p.file === join(dir, 'slice050.dcm'))?.code).toBe('corrupt-file');
    expect(r.problems.map((p) => p.code)).toContain('nothing-usable');
  });

  it('names up to three damaged files and counts the rest', async () => {
    const dir = craniumCopy('damaged-5');
    for (const n of ['020', '030', '040', '050', '060']) {
      const f = join(dir, `slice${n}.dcm`);
      const bytes = readFileSync(f);
      writeFileSync(f, bytes.subarray(0, seriesUidEnd(bytes) + 100));
    }
    const s = (await run([dir])).series[0]!;
    expect(s.problems.find((p) => p.code === 'damaged-files')?.message).toMatch(
      /^5 files of this series are damaged: slice020\.dcm \(.+\); slice030\.dcm \(.+\); slice040\.dcm \(.+\); and 2 more\. The scan is not complete without them/,
    );
  });

  it('is said by the series beside it when the cut ends inside the UID: none is named by half a UID', async () => {
    const dir = craniumCopy('uid-cut');
    const bytes = readFileSync(join(dir, 'slice050.dcm'));
    writeFileSync(join(dir, 'slice050.dcm'), bytes.subarray(0, seriesUidEnd(bytes) - 10));
    const r = await run([dir]);
    const s = r.series[0]!;
    // Not by its UID: by lying among the series' files, which it may be one of.
    expect(s.problems.find((p) => p.code === 'damaged-files')?.message).toMatch(
      /^1 file beside this series' files is damaged, too much to tell which series it is of: slice050\.dcm/,
    );
    expect(isUsable(s)).toBe(false);
    expect(codes(s)).toContain('missing-slices');
    expect(r.problems.find((p) => p.file === join(dir, 'slice050.dcm'))?.code).toBe('corrupt-file');
  });
});

describe('two files with one SOP Instance UID', () => {
  it('are one image counted once when their bytes are the same, whatever their names', async () => {
    const dir = craniumCopy('copy');
    copyFileSync(join(dir, 'slice050.dcm'), join(dir, 'aaa-copy.dcm'));
    const s = (await run([dir])).series[0]!;
    expect(s.slices).toBe(108);
    expect(codes(s)).toEqual(['duplicate-files']);
    expect(isUsable(s)).toBe(true);
  });

  it('are an error naming both when their content differs, whichever is listed first', async () => {
    for (const name of ['aaa-other.dcm', 'zzz-other.dcm']) {
      const dir = craniumCopy(`other-${name}`);
      // Another image under slice050's UID: its pixels changed, its header the same.
      const bytes = readFileSync(join(dir, 'slice050.dcm'));
      const pixels = dicomParser.parseDicom(bytes).elements.x7fe00010!;
      bytes.fill(0x7f, pixels.dataOffset + 1000, pixels.dataOffset + 3000);
      writeFileSync(join(dir, name), bytes);
      const s = (await run([dir])).series[0]!;
      const p = s.problems.find((x) => x.code === 'duplicate-uid');
      const pair = name < 'slice050.dcm' ? `${name}, slice050.dcm` : `slice050.dcm, ${name}`;
      expect(p).toMatchObject({ severity: 'error' });
      expect(p!.message).toBe(
        `2 different images carry the same instance UID: ${pair}. Only one of them can be this slice of the scan, and which one is not known; export the series again.`,
      );
      expect(codes(s)).not.toContain('duplicate-files');
      expect(isUsable(s)).toBe(false);
    }
  });
});

const noPydicom = pydicomMissing();

describe.skipIf(noPydicom !== null)(
  `one SOP Instance UID in two transfer syntaxes${noPydicom ? ` (skipped: ${noPydicom})` : ''}`,
  () => {
    /** Slice 50 written again by pydicom in `syntax`, its pixels first changed by `change` (numpy, on `a`). */
    function converted(dir: string, name: string, syntax: 'implicit' | 'rle', change = ''): void {
      python(
        String.raw`
import sys, json, pydicom
from pydicom.uid import ImplicitVRLittleEndian, RLELossless
ds = pydicom.dcmread(sys.argv[1])
a = ds.pixel_array.copy()
${change}
ds.PixelData = a.tobytes()
if sys.argv[3] == 'rle':
    ds.compress(RLELossless, a)
else:
    ds.file_meta.TransferSyntaxUID = ImplicitVRLittleEndian
    ds.is_implicit_VR = True
ds.save_as(sys.argv[2])
print(json.dumps(True))`,
        [join(dir, 'slice050.dcm'), join(dir, name), syntax],
      );
    }

    it('are one image when the image is the same: an archive converted it without loss', async () => {
      for (const syntax of ['implicit', 'rle'] as const) {
        const dir = craniumCopy(`converted-${syntax}`);
        converted(dir, 'aaa-converted.dcm', syntax);
        const s = (await run([dir])).series[0]!;
        expect(s.slices).toBe(108);
        // The first listed is kept (here the converted one: the series is then in two encodings).
        expect(codes(s), syntax).toContain('duplicate-files');
        expect(codes(s)).toContain('mixed-encodings');
        expect(isUsable(s)).toBe(true);
      }
    });

    it('are two images when the image differs, or where it lies: neither is taken by its name', async () => {
      // A review: a block of bone in the converted file, or its position 0.4 mm off, was taken for a
      // copy; listed first, it made the model.
      const changes = {
        block: 'a[100:140, 100:140] = 1500',
        position:
          'ds.ImagePositionPatient = [float(v) + (0.4 if i == 2 else 0) for i, v in enumerate(ds.ImagePositionPatient)]',
      };
      for (const [what, change] of Object.entries(changes)) {
        for (const syntax of ['implicit', 'rle'] as const) {
          const dir = craniumCopy(`other-${what}-${syntax}`);
          converted(dir, 'aaa-other.dcm', syntax, change);
          const s = (await run([dir])).series[0]!;
          expect(codes(s), `${what} ${syntax}`).toContain('duplicate-uid');
          expect(codes(s)).not.toContain('duplicate-files');
          expect(isUsable(s)).toBe(false);
        }
      }
    });
  },
);

describe.skipIf(noPydicom !== null)(
  `a second image next to a slice${noPydicom ? ` (skipped: ${noPydicom})` : ''}`,
  () => {
    it("is refused as lying at that slice's place when it is 0.01 or 0.05 mm from it, not taken for uneven spacing", async () => {
      for (const mm of [0.01, 0.05]) {
        const dir = craniumCopy(`near-${mm}`);
        python(
          String.raw`
import sys, json, pydicom
from pydicom.uid import generate_uid
ds = pydicom.dcmread(sys.argv[1])
ds.SOPInstanceUID = generate_uid()
ds.ImagePositionPatient = [float(v) + (float(sys.argv[3]) if i == 2 else 0) for i, v in enumerate(ds.ImagePositionPatient)]
a = ds.pixel_array.copy(); a[60:120, 60:120] = 1500; ds.PixelData = a.tobytes()
ds.save_as(sys.argv[2])
print(json.dumps(True))`,
          [join(dir, 'slice050.dcm'), join(dir, 'intruder.dcm'), String(mm)],
        );
        const s = (await run([dir])).series[0]!;
        const p = s.problems.find((x) => x.code === 'duplicate-positions');
        expect(p?.message, String(mm)).toMatch(
          /^1 slice lies at the same place as another one or within 0\.08 mm of it \(at .* mm\)\. The series may hold two scans or repeated images\.$/,
        );
        expect(isUsable(s)).toBe(false);
      }
    });
  },
);

describe.skipIf(noPydicom !== null)(
  `two time points of a scan repeated over time in one series${noPydicom ? ` (skipped: ${noPydicom})` : ''}`,
  () => {
    it('are refused before any work, naming the time points (a review: interleaved 0.5 mm apart)', async () => {
      const dir = fresh('time-points');
      python(
        String.raw`
import sys, os, json, glob, pydicom
from pydicom.uid import generate_uid
src, out = sys.argv[1], sys.argv[2]
for f in sorted(glob.glob(src + '/*.dcm')):
    for t in (1, 2):
        ds = pydicom.dcmread(f)
        ds.TemporalPositionIdentifier = t
        if t == 2:
            ds.SOPInstanceUID = generate_uid()
            ds.ImagePositionPatient = [float(v) + (0.5 if i == 2 else 0) for i, v in enumerate(ds.ImagePositionPatient)]
        ds.save_as(os.path.join(out, 't%d-%s' % (t, os.path.basename(f))))
print(json.dumps(True))`,
        [CRANIUM, dir],
      );
      const s = (await run([dir])).series[0]!;
      expect(s.problems.find((p) => p.code === 'mixed-time-points')?.message).toMatch(
        /^The files of this series show 2 time points of a scan repeated over time \(Temporal Position Identifier: t2-slice001\.dcm is at 2, t1-slice001\.dcm at 1\)/,
      );
      expect(isUsable(s)).toBe(false);
    });
  },
);

describe('a slice of another kind of image in a series', () => {
  it('is refused, naming its file and its SOP Class (a Secondary Capture was taken for a CT slice)', async () => {
    const dir = craniumCopy('sop-class');
    const f = join(dir, 'slice050.dcm');
    const bytes = readFileSync(f);
    patchElement(bytes, 'x00080016', sameLength(bytes, 'x00080016', '1.2.840.10008.5.1.4.1.1.7'));
    writeFileSync(f, bytes);
    const s = (await run([dir])).series[0]!;
    expect(s.problems.find((p) => p.code === 'mixed-image-kinds')?.message).toMatch(
      /^The files of this series are not all of one kind of image \(SOP Class UID 1\.2\.840\.10008\.5\.1\.4\.1\.1\.7 in slice050\.dcm, 1\.2\.840\.10008\.5\.1\.4\.1\.1\.2 in slice001\.dcm\)/,
    );
    expect(isUsable(s)).toBe(false);
  });
});

describe('slices without a Series Instance UID', () => {
  it('are each listed alone, saying the UID is missing rather than only that one slice is too few', async () => {
    const dir = craniumCopy('no-series-uid');
    for (const f of readdirSync(dir)) {
      const bytes = readFileSync(join(dir, f));
      patchElement(bytes, 'x0020000e', sameLength(bytes, 'x0020000e', ''));
      writeFileSync(join(dir, f), bytes);
    }
    const { series } = await run([dir]);
    expect(series).toHaveLength(108);
    for (const s of series) {
      expect(s.problems.find((p) => p.code === 'no-series-uid')?.message).toMatch(
        /^This file has no Series Instance UID \(0020,000E\), which tells which slices make one scan/,
      );
      expect(isUsable(s)).toBe(false);
    }
  });
});

describe('slices of more than one patient in one series', () => {
  it('are an error naming what differs, not the other identities', async () => {
    const dir = craniumCopy('patients');
    for (const f of readdirSync(dir)
      .sort()
      .filter((_, i) => i % 2 === 1)) {
      const bytes = readFileSync(join(dir, f));
      patchElement(bytes, 'x00100010', sameLength(bytes, 'x00100010', 'DOE^JANE'));
      patchElement(bytes, 'x00100020', sameLength(bytes, 'x00100020', 'OTHER-99'));
      writeFileSync(join(dir, f), bytes);
    }
    const s = (await run([dir])).series[0]!;
    const p = s.problems.find((x) => x.code === 'mixed-patients')!;
    expect(p).toMatchObject({ severity: 'error', file: join(dir, 'slice002.dcm') });
    expect(p.message).toBe(
      "The files of this series are not all of one patient: the patient's name and patient ID differ between them (for example in slice002.dcm). A model is made of one patient's scan only; export the series again.",
    );
    expect(p.message).not.toMatch(/DOE|JANE|OTHER-99/);
    expect(isUsable(s)).toBe(false);
  });

  it('compares exactly but for padding: one differing letter counts, trailing spaces do not', async () => {
    const files = readdirSync(CRANIUM)
      .sort()
      .map((f) => join(CRANIUM, f));
    const headers = await readSeriesHeaders(files);
    const summary = (): SeriesSummary => summarizeSeries(headers, (p) => basename(p)).summary;
    expect(codes(summary())).toEqual([]);
    headers[7]!.patientId = `${headers[7]!.patientId}  `;
    expect(codes(summary())).toEqual([]);
    headers[7]!.patientId = headers[7]!.patientId.trim().replace(/.$/, (c) => (c === '1' ? '2' : '1'));
    expect(summary().problems.find((p) => p.code === 'mixed-patients')?.message).toMatch(
      /the patient ID differs between them \(for example in slice008\.dcm\)/,
    );
  });
});
