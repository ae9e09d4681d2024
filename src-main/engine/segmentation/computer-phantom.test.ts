// Phantoms made on a computer have no noise: air is one value, tissue another, bone a third. The
// engine refused such a head as "too little contrast" (the air, the lowest value, was left out as
// padding), put its surfaces half a voxel into the denser side (the first level of an empty gap), and
// refused a stack of 0.5 mm slices that goes on in 2 mm ones as "a gap wider than 1.5 mm".
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pydicomMissing, python } from '../../scans/scans.test-support.js';
import { writeZip } from '../../scans/zip.test-support.js';
import type { ProcessorResult } from '../processor.js';
import { createSegmentationProcessor } from './index.js';
import { meshBounds } from './mesh-checks.js';
import { readStl } from './stl.test-support.js';

const noPydicom = pydicomMissing();
const skipped = noPydicom ? ` (skipped: ${noPydicom})` : '';
const tmp = mkdtempSync(join(tmpdir(), 's2m-computer-phantom-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const processor = createSegmentationProcessor({ workers: 2 });

/**
 * Writes a noise-free CT in Hounsfield units: 120 x 120 pixels of 1.5 mm, air -1000 around an
 * ellipsoid head (skin semi-axes 70, 80, 75 mm about x 0, y 0, z 75) of soft tissue 40 with a bone
 * shell of 1200 between semi-axes (60, 70, 65) and (66, 76, 71), a jaw arch of bone (z 15 to 25 mm)
 * and twelve teeth of 2500 on it (cylinders of radius 3.5 mm, z 25 to 33); or, with `ball`, bone of
 * 1000 in a ball of radius 30 mm about (10, -5, 75) and nothing else; or, with `jaw`, the head whose
 * skull stops 40 mm up, the jaw and its teeth a piece of bone apart, as a mandible is (about 20 cm³
 * against the skull's 280). Slices at the given heights.
 */
const WRITE = `
import sys, json, numpy as np, pydicom
from pydicom.dataset import FileDataset, FileMetaDataset
from pydicom.uid import generate_uid, ExplicitVRLittleEndian, CTImageStorage
out, kind, zs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
n, ps = 120, 1.5
study, series = generate_uid(), generate_uid()
yy, xx = np.mgrid[0:n, 0:n]
x = -89.25 + xx * ps; y = -89.25 + yy * ps
for k, z in enumerate(zs):
    img = np.full((n, n), -1000.0)
    if kind == 'ball':
        img[(x - 10) ** 2 + (y + 5) ** 2 + (z - 75) ** 2 < 30 ** 2] = 1000
    else:
        e = lambda a, b, c: (x / a) ** 2 + (y / b) ** 2 + ((z - 75) / c) ** 2 < 1
        img[e(70, 80, 75)] = 40
        img[e(66, 76, 71) & ~e(60, 70, 65) & (kind == 'head' or z > 40)] = 1200
        r = np.hypot(x, y + 10)
        if 15 <= z < 25:
            img[(r > 38) & (r < 50) & (y < -5)] = 1200
        if 25 <= z < 33:
            for a in np.linspace(0.15 * np.pi, 0.85 * np.pi, 12):
                img[(x - 44 * np.cos(a)) ** 2 + (y + 10 + 44 * np.sin(a)) ** 2 < 3.5 ** 2] = 2500
    meta = FileMetaDataset()
    sop = generate_uid()
    meta.MediaStorageSOPClassUID = CTImageStorage; meta.MediaStorageSOPInstanceUID = sop
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = FileDataset(None, {}, file_meta=meta, preamble=b'\\0' * 128)
    ds.SOPClassUID = CTImageStorage; ds.SOPInstanceUID = sop; ds.Modality = 'CT'
    ds.PatientName = 'Phantom^Computer'; ds.PatientID = 'P1'
    ds.StudyInstanceUID = study; ds.SeriesInstanceUID = series; ds.SeriesNumber = 1; ds.InstanceNumber = k + 1
    ds.ImagePositionPatient = [-89.25, -89.25, float(z)]; ds.ImageOrientationPatient = [1, 0, 0, 0, 1, 0]
    ds.PixelSpacing = [ps, ps]; ds.SliceThickness = 2.0
    ds.Rows = n; ds.Columns = n; ds.SamplesPerPixel = 1; ds.PhotometricInterpretation = 'MONOCHROME2'
    ds.BitsAllocated = 16; ds.BitsStored = 12; ds.HighBit = 11; ds.PixelRepresentation = 0
    ds.RescaleIntercept = -1024; ds.RescaleSlope = 1
    ds.PixelData = np.round(img + 1024).astype(np.uint16).tobytes()
    ds.is_little_endian = True; ds.is_implicit_VR = False
    ds.save_as(f'{out}/s{k:03d}.dcm')
print(json.dumps(len(zs)))
`;

const range = (from: number, count: number, step: number): number[] =>
  Array.from({ length: count }, (_, k) => from + k * step);

async function job(name: string, kind: 'head' | 'jaw' | 'ball', zs: number[], structures: string[]) {
  const dir = join(tmp, name);
  python(`import os; os.makedirs(${JSON.stringify(dir)}); print(1)`);
  python(WRITE, [dir, kind, JSON.stringify(zs)]);
  const files = (await readdir(dir)).sort();
  const zipPath = join(tmp, `${name}.zip`);
  await writeZip(
    zipPath,
    files.map((f) => ({ name: f, file: join(dir, f) })),
  );
  const result: ProcessorResult = await processor.process(
    {
      jobId: name,
      inputs: [{ name: 'cbct', extension: '.zip', path: zipPath }],
      meshes: structures.map((s) => ({ extension: '.stl', structures: [s] })),
      options: {},
      workDir: join(tmp, `${name}-work`),
    },
    () => {},
    new AbortController().signal,
  );
  return Promise.all(
    result.meshes.map(async (m) => {
      if (m.refused !== undefined) throw new Error(`${name}: mesh refused: ${m.refused}`);
      return meshBounds((await readStl(m.path)).positions);
    }),
  );
}

/** Each face of the box within `tol` mm of the true one. */
function expectBox(b: { min: number[]; max: number[] }, min: number[], max: number[], tol: number[]) {
  for (let a = 0; a < 3; a++) {
    expect(Math.abs(b.min[a]! - min[a]!), `min ${'xyz'[a]}: ${b.min[a]} vs ${min[a]}`).toBeLessThan(tol[a]!);
    expect(Math.abs(b.max[a]! - max[a]!), `max ${'xyz'[a]}: ${b.max[a]} vs ${max[a]}`).toBeLessThan(tol[a]!);
  }
}

describe.skipIf(noPydicom !== null)(`a noise-free phantom made on a computer${skipped}`, () => {
  it('makes the skull, the teeth and the skin of an evenly spaced head where they are', async () => {
    const structures = ['skull', 'all_teeth', 'soft_tissue'];
    const [skull, teeth, skin] = await job('even', 'head', range(-6, 109, 1.5), structures);
    // Within a pixel's half (0.75 mm) and the slices' half (0.75 mm), with a little for smoothing.
    expectBox(skull!, [-66, -76, 4], [66, 76, 146], [1, 1, 1]);
    expectBox(skin!, [-70, -80, 0], [70, 80, 150], [1, 1, 1]);
    // The twelve crowns: 44 mm about (0, -10) from 27 to 153 degrees, 3.5 mm across, 25 to 33 mm up.
    const side = 44 * Math.cos(0.15 * Math.PI) + 3.5;
    expectBox(teeth!, [-side, -57.5, 25], [side, -10 - 44 * Math.sin(0.15 * Math.PI) + 3.5, 33], [1, 1, 1]);
  });

  it('makes the skull of a stack of 0.5 mm slices that goes on in 2 mm ones', async () => {
    const zs = [...range(-5, 100, 0.5), ...range(46.5, 55, 2)];
    const [skull] = await job('fine-then-coarse', 'head', zs, ['skull']);
    expectBox(skull!, [-66, -76, 4], [66, 76, 146], [1, 1, 1.5]);
  });

  it('keeps in the skull a jaw with teeth that is a piece apart and under a tenth of it', async () => {
    // A review: "all bone as one surface ... mandible, teeth included" left out such a jaw as one of
    // its "small loose pieces", while all_teeth found its teeth "joined to bone".
    const [skull, teeth] = await job('jaw', 'jaw', range(-6, 109, 1.5), ['skull', 'all_teeth']);
    expect(skull!.min[2]).toBeLessThan(16);
    expect(skull!.max[2]).toBeGreaterThan(145);
    expect(teeth!.min[2]).toBeGreaterThan(24);
  });

  it('makes a ball of bone in air, two values only, as large as it is', async () => {
    const [ball] = await job('ball', 'ball', range(30, 61, 1.5), ['skull']);
    expectBox(ball!, [-20, -35, 45], [40, 25, 105], [1, 1, 1]);
  });
});
