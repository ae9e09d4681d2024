import { beforeAll, describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readVolume } from '../../scans/volume-reader.js';
import type { Volume } from '../../scans/volume.js';
import { PHANTOM_DIR } from '../../scans/scans.test-support.js';
import { bandProfile } from './dentition.js';
import { deriveThresholds, segmentTissue, type Thresholds } from './tissue.js';

/** A real human head CT in Hounsfield units, with the upper teeth in its lowest ~10 mm (MANIFEST.md). */
const CRANIUM = resolve('../shared/fixtures/dicom/ct-human-cranium-teeth');
let head: Volume;
let phantom: Volume;

const readDir = async (dir: string): Promise<Volume> =>
  readVolume((await readdir(dir)).sort().map((f) => join(dir, f)));

beforeAll(async () => {
  [head, phantom] = await Promise.all([readDir(CRANIUM), readDir(PHANTOM_DIR)]);
}, 120_000);

/** Voxels [i0, i1) x [j0, j1) x [k0, k1) of the real scan, placed where they were. */
function crop(v: Volume, [i0, i1]: number[], [j0, j1]: number[], [k0, k1]: number[]): Volume {
  const [nx, ny] = v.dims;
  const dims: [number, number, number] = [i1! - i0!, j1! - j0!, k1! - k0!];
  const data = new Int16Array(dims[0] * dims[1] * dims[2]);
  let o = 0;
  for (let k = k0!; k < k1!; k++)
    for (let j = j0!; j < j1!; j++)
      for (let i = i0!; i < i1!; i++) data[o++] = v.data[i + nx * (j + ny * k)] as number;
  const origin: [number, number, number] = [
    v.origin[0] + i0! * v.spacing[0],
    v.origin[1] + j0! * v.spacing[1],
    v.origin[2] + k0! * v.spacing[2],
  ];
  return { ...v, data, dims, origin };
}

/** The real scan with each voxel's value changed by `f(value, i, j, k)`. */
function edit(v: Volume, f: (value: number, i: number, j: number, k: number) => number): Volume {
  const [nx, ny, nz] = v.dims;
  const data = new Int16Array(v.data.length);
  for (let k = 0, p = 0; k < nz; k++)
    for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++, p++) data[p] = f(v.data[p] as number, i, j, k);
  return { ...v, data };
}

const thresholds = (v: Volume): Thresholds => deriveThresholds(v.data, v.modality);
const cm3 = (voxels: number, v: Volume): number =>
  (voxels * v.spacing[0] * v.spacing[1] * v.spacing[2]) / 1000;

describe('tissue classes shown to exist before a surface is named after them', () => {
  it('finds all four classes on the real head CT, and none is refused', () => {
    const t = thresholds(head);
    expect(t.absent).toEqual({});
  });

  it('finds bone in every 35-slice slab of the phantom, whatever its histogram makes of the scale', () => {
    // A plastic skull in air: no soft-tissue peak at 0 HU, so a slab's scale may be read from other
    // peaks and its split fall low (80 "HU"), while its values reach 1000 HU. The e2e batch sends
    // these four slabs for a skull.
    const [nx, ny, nz] = phantom.dims;
    for (let k0 = 0; k0 + 35 <= nz; k0 += 35) {
      const t = thresholds(crop(phantom, [0, nx], [0, ny], [k0, k0 + 35]));
      expect(t.absent.bone, `slices ${k0}-${k0 + 34}`).toBeUndefined();
    }
  });

  it('refuses bone, teeth, airway and skin on a crop of brain alone (no bone, no air), in words', () => {
    // Slices z 75-106.5 mm, rows 40-105, columns 100-165: brain, -27 to 154 HU.
    const brain = crop(head, [100, 166], [40, 106], [50, 72]);
    expect(brain.dims).toEqual([66, 66, 22]);
    const t = thresholds(brain);
    expect(t.absent.bone?.message).toMatch(
      /^No bone or teeth can be told in this scan: this scan shows no air clearly apart from soft tissue \(its values stay between -27 and 154\), and nothing in it reaches 300 HU, as bone does, even if its values are Hounsfield units/,
    );
    expect(t.absent.teeth).toEqual(t.absent.bone);
    expect(t.absent.airway?.message).toMatch(/^No airway can be found: this scan shows no air/);
    expect(t.absent['soft-tissue']?.message).toMatch(/^No skin surface can be found/);
    expect(t.absent.bone?.action).toMatch(/skull and all_teeth only on scans that include the bone/);
  });

  it('keeps an uncalibrated copy of the real head working: teeth where they are, nothing refused', () => {
    // As a CBCT device without Hounsfield calibration might write it: (HU + 1024) / 2 + 200.
    const grey = edit(head, (v) => Math.floor((v + 1024) / 2) + 200);
    const t = deriveThresholds(grey.data, 'CT');
    expect(t.scale?.hounsfield).toBe(false);
    expect(t.absent).toEqual({});
    const teeth = segmentTissue(grey, 'teeth', t);
    expect(bandProfile(teeth.mask, grey)).toMatchObject({ inBand: 1 });
    expect(bandProfile(teeth.mask, grey).height).toBeLessThanOrEqual(20);
    expect(teeth.place).toMatchObject({ loose: 0 });
  });
});

describe('teeth shown to be teeth by where they are', () => {
  it('finds the real teeth as before: every piece on bone, at the foot of the bone', () => {
    const t = thresholds(head);
    const teeth = segmentTissue(head, 'teeth', t);
    // 1.61 cm³ of voxels above the level (the mesh, at the level between voxels, holds 1.14 cm³).
    expect(cm3(teeth.components.keptVoxels, head)).toBeCloseTo(1.61, 2);
    expect(teeth.place?.loose).toBe(0);
    expect(teeth.place?.boneSpan).toBeGreaterThan(140);
    expect(teeth.place?.heightInBone).toBeLessThan(0.05);
    expect(teeth.place?.metalShare).toBe(0);
  });

  it('refuses a block of metal in the cranial cavity: dense and compact, but joined to no bone', () => {
    // Slices z >= 60 mm (no teeth), with 3000 HU written into 11 x 11 voxels of four slices of brain.
    const vault = edit(crop(head, [0, 256], [0, 256], [40, 108]), (v, i, j, k) =>
      Math.abs(i - 128) < 6 && Math.abs(j - 40) < 6 && k >= 27 && k <= 30 ? 3000 : v,
    );
    const t = thresholds(vault);
    expect(() => segmentTissue(vault, 'teeth', t)).toThrow(
      /above 1770\.5 HU\) is not teeth: it lies free in soft tissue or air, joined to no bone/,
    );
  });

  it('refuses teeth at the top of the bone: the slice positions run the wrong way', () => {
    // The slice positions negated, as the audit's variant: the first slice is now the highest.
    const [nx, ny, nz] = head.dims;
    const plane = nx * ny;
    const data = new Int16Array(head.data.length);
    for (let k = 0; k < nz; k++)
      data.set(head.data.subarray((nz - 1 - k) * plane, (nz - k) * plane), k * plane);
    const flipped: Volume = {
      ...head,
      data,
      origin: [head.origin[0], head.origin[1], -(head.origin[2] + (nz - 1) * head.spacing[2])],
    };
    expect(() => segmentTissue(flipped, 'teeth', thresholds(flipped))).toThrow(
      /lies 9\d % of the way up its bone \(1\d\d mm from the lowest to the highest bone\), where no teeth are.*slice positions of the scan run the wrong way/,
    );
  });

  it('keeps a small field of view on the teeth, and fillings, and says what it did not check', () => {
    // Slices z 0-39 mm, 80 x 80 voxels around the teeth: the bone is too short to tell up from down.
    const small = crop(head, [90, 170], [150, 230], [0, 27]);
    const teeth = segmentTissue(small, 'teeth', thresholds(small));
    expect(cm3(teeth.components.keptVoxels, small)).toBeCloseTo(1.61, 2);
    expect(teeth.place).toMatchObject({ loose: 0, heightInBone: null });
    // Enamel and dentine of the lowest 6 mm turned to metal (3071 HU): still the dentition, said so.
    const filled = edit(head, (v, _i, _j, k) => (v > 1770 && k * 1.5 < 6 ? 3071 : v));
    const withMetal = segmentTissue(filled, 'teeth', thresholds(filled));
    expect(withMetal.place?.loose).toBe(0);
    expect(withMetal.place?.metalShare).toBeGreaterThan(0.5);
  });
});

describe('two names never one surface: skin and airway on a skull phantom', () => {
  it('refuses soft_tissue on the phantom, whose outer surface is the plastic skull, not on the real head', () => {
    expect(() => segmentTissue(phantom, 'soft-tissue', thresholds(phantom))).toThrow(
      /The outer surface of this scan's tissue is bone over \d+ % of it: there is no soft tissue over the bone/,
    );
    const skin = segmentTissue(head, 'soft-tissue', thresholds(head));
    expect(skin.components.kept).toBe(1);
  });

  it('refuses airway on the phantom (its largest enclosed air is the empty cranial cavity), not on the real head', () => {
    expect(() => segmentTissue(phantom, 'airway', thresholds(phantom))).toThrow(
      /The largest air space enclosed in this scan is 59\d cm³, more than an airway/,
    );
    const airway = segmentTissue(head, 'airway', thresholds(head));
    expect(cm3(airway.components.keptVoxels, head)).toBeGreaterThan(40);
    expect(cm3(airway.components.keptVoxels, head)).toBeLessThan(60);
  });
});
