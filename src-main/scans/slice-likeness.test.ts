import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FIXTURES,
  phantomBySlice,
  pydicomMissing,
  python,
  tempFolders,
  withPixels,
} from './scans.test-support.js';
import { layoutSlices } from './slice-layout.js';
import { checkSlicesAlike } from './slice-likeness.js';
import { readSeriesHeaders, readVolumeForSegmentation, readVolume } from './volume-reader.js';

// The variants are built with pydicom (Debian's python3-pydicom): said in the test's name when missing.
const noPydicom = pydicomMissing();
const skipped = noPydicom ? ` (skipped: ${noPydicom})` : '';

const CRANIUM = join(FIXTURES, 'ct-human-cranium-teeth');

const { fresh } = tempFolders('s2m-likeness-');

/** The real phantom's slices, those in `ks` (stack order) with their stored values changed by `f`. */
function phantomWith(
  ks: number | number[],
  f: (stored: number, column: number, row: number) => number,
): string[] {
  const dir = fresh('phantom');
  const changed = new Set([ks].flat());
  return phantomBySlice().map((src, i) => {
    const to = join(dir, basename(src));
    const bytes = readFileSync(src);
    writeFileSync(to, changed.has(i) ? withPixels(bytes, f) : bytes);
    return to;
  });
}

/** A repeatable noise source, uniform in [0, 1). */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('a slice like neither neighbour', () => {
  it('is refused for a model, naming its file: a slice decoded to a flat image or to noise', async () => {
    // As JPEG 2000 coded data lost to zeros decodes (without a word from the decoder): slice 71 of the
    // real phantom flat, then noise over the whole value range.
    const files = phantomBySlice();
    const flat = phantomWith(70, () => 0);
    await expect(readVolumeForSegmentation(flat)).rejects.toThrow(
      new RegExp(
        `^The image of slice 71 of 140 \\(${basename(files[70]!)}\\) is like neither slice beside it \\(it correlates 0\\.00 and 0\\.00 with them, while half of the scan's neighbouring slices correlate 0\\.\\d\\d or more\\): its image data is damaged, or the patient moved`,
      ),
    );
    const random = seeded(7);
    const noise = phantomWith(70, () => Math.floor(random() * 4096));
    await expect(readVolumeForSegmentation(noise)).rejects.toThrow(/^The image of slice 71 of 140 /);
    // The preview shows what there is.
    await expect(readVolume(flat)).resolves.toBeDefined();
  });

  it('is refused two at a time, and at either end unless it is one value (an empty end slice)', async () => {
    // A second review: two neighbouring slices lost to zeros are alike (one value each), and the
    // first and last slices have one neighbour; both passed.
    const files = phantomBySlice();
    await expect(readVolumeForSegmentation(phantomWith([70, 71], () => 0))).rejects.toThrow(
      new RegExp(
        `^The images of slices 71 to 72 of 140 \\(${basename(files[70]!)} to ${basename(files[71]!)}\\) are like no slice beside them`,
      ),
    );
    const random = seeded(3);
    await expect(
      readVolumeForSegmentation(phantomWith(0, () => Math.floor(random() * 4096))),
    ).rejects.toThrow(
      new RegExp(
        `^The image of slice 1 of 140 \\(${basename(files[0]!)}\\) is like no slice beside it \\(it correlates 0\\.\\d\\d with it,`,
      ),
    );
    await expect(readVolumeForSegmentation(phantomWith(139, () => 0))).resolves.toBeDefined();
  });

  it('is not a slice with little in it, such as noisy air past the top of the head', async () => {
    // A review: the real head with noise of 150 HU on every voxel was refused at its top slices,
    // nearly all air past the vertex, whose noise correlates with nothing.
    const files = readdirSync(CRANIUM)
      .sort()
      .map((f) => join(CRANIUM, f));
    const volume = await readVolume(files);
    const { layout } = layoutSlices(await readSeriesHeaders(files));
    const random = seeded(5);
    const gaussian = (): number =>
      Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
    const noisy = { ...volume, data: Int16Array.from(volume.data, (x) => Math.round(x + 150 * gaussian())) };
    expect(() => checkSlicesAlike(noisy, layout)).not.toThrow();
    // One slice of noise over the whole range in the middle of it is still refused.
    const plane = volume.dims[0] * volume.dims[1];
    const garbage = Int16Array.from(noisy.data);
    for (let p = 54 * plane; p < 55 * plane; p++) garbage[p] = Math.floor(random() * 4096) - 1024;
    expect(() => checkSlicesAlike({ ...volume, data: garbage }, layout)).toThrow(
      /^The image of slice 55 of 108 /,
    );
  });

  it('is not a noisy slice, which still looks like its neighbours', async () => {
    // Noise of about 300 grey values on one slice in three: each still looks like its neighbours.
    const random = seeded(11);
    const dir = fresh('noisy');
    const files = phantomBySlice().map((src, i) => {
      const to = join(dir, basename(src));
      const bytes = readFileSync(src);
      writeFileSync(
        to,
        i % 3 === 0 ? withPixels(bytes, (v) => Math.max(0, v + Math.round((random() - 0.5) * 1000))) : bytes,
      );
      return to;
    });
    await expect(readVolumeForSegmentation(files)).resolves.toBeDefined();
  });
});

describe.skipIf(noPydicom !== null)(`two scans one after the other in one series${skipped}`, () => {
  /**
   * The real head, then `then` above it: the head again, slices of air at one value, or air at one
   * value inside a round field of view padded with another.
   */
  function headThen(then: 'head' | 'air' | 'padded air', count: number): string[] {
    const dir = fresh(`then-${then.replace(' ', '-')}`);
    python(
      String.raw`
import sys, os, json, glob, numpy as np, pydicom
from pydicom.uid import generate_uid
src, out, then, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
files = sorted(glob.glob(src + '/*.dcm'))
for f in files:
    pydicom.dcmread(f).save_as(os.path.join(out, os.path.basename(f)))
top = float(pydicom.dcmread(files[-1]).ImagePositionPatient[2])
for i in range(count):
    ds = pydicom.dcmread(files[i % len(files)])
    ds.SOPInstanceUID = generate_uid()
    p = [float(v) for v in ds.ImagePositionPatient]
    ds.ImagePositionPatient = [p[0], p[1], top + 1.5 * (i + 1)]
    if then in ('air', 'padded air'):
        r, c = ds.Rows, ds.Columns
        jj, ii = np.indices((r, c))
        inside = (ii - c / 2) ** 2 + (jj - r / 2) ** 2 < (c / 2) ** 2 if then == 'padded air' else np.full((r, c), True)
        hu = np.where(inside, -1024.0, -3024.0)
        ds.PixelData = np.rint((hu - float(ds.RescaleIntercept)) / float(ds.RescaleSlope)).astype(ds.pixel_array.dtype).tobytes()
    ds.save_as(os.path.join(out, 'then%03d.dcm' % i))
print(json.dumps(True))`,
      [CRANIUM, dir, then, String(count)],
    );
    return readdirSync(dir).map((f) => join(dir, f));
  }

  it('is refused where the second begins, naming both slices (the head twice along one stack)', async () => {
    await expect(readVolumeForSegmentation(headThen('head', 108))).rejects.toThrow(
      /^The scan changes at once between slice 108 and slice 109 of 216 \(slice108\.dcm and then000\.dcm\): they correlate -?0\.\d\d, .* The series holds two scans one after the other/,
    );
  });

  it('is not a head with many slices of air at one value above it, padded or not', async () => {
    await expect(readVolumeForSegmentation(headThen('air', 30))).resolves.toBeDefined();
    await expect(readVolumeForSegmentation(headThen('padded air', 30))).resolves.toBeDefined();
  });
});
