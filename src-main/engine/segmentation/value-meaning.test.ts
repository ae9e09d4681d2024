// What a scan's values mean decides what its thresholds find: the unit its files state (Rescale
// Type), the padding outside its field of view, and which way round its values run. Variants of the
// real head CT built in memory, as the audit built them as files.
import { beforeAll, describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readVolume } from '../../scans/volume-reader.js';
import type { Volume } from '../../scans/volume.js';
import { DENTITION_MIN_HU } from './dentition.js';
import { filterComponents, keepLarge } from './components.js';
import { deriveThresholds, segmentTissue, type Thresholds } from './tissue.js';

/** A real human head CT in Hounsfield units, with the upper teeth in its lowest ~10 mm (MANIFEST.md). */
const CRANIUM = resolve('../shared/fixtures/dicom/ct-human-cranium-teeth');
/** The plastic skull phantom, slices 1 mm apart (MANIFEST.md). */
const PHANTOM = resolve('../shared/fixtures/dicom/ct-head-phantom-1mm');
let head: Volume;
let phantom: Volume;

const readDir = async (dir: string): Promise<Volume> =>
  readVolume((await readdir(dir)).sort().map((f) => join(dir, f)));

beforeAll(async () => {
  [head, phantom] = await Promise.all([readDir(CRANIUM), readDir(PHANTOM)]);
}, 120_000);

/** The real scan with each voxel's value changed by `f(value, i, j, k)`, and other facts. */
function edit(
  v: Volume,
  f: (value: number, i: number, j: number, k: number) => number,
  facts: Partial<Volume> = {},
): Volume {
  const [nx, ny, nz] = v.dims;
  const data = new Int16Array(v.data.length);
  for (let k = 0, p = 0; k < nz; k++)
    for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++, p++) data[p] = f(v.data[p] as number, i, j, k);
  return { ...v, ...facts, data };
}

const thresholds = (v: Volume): Thresholds => deriveThresholds(v.data, v.modality, undefined, v);

describe('Rescale Type: a CT in another unit is not taken for Hounsfield units', () => {
  it('scales the dentition level from air and soft tissue when the values are 0.92 x HU, Rescale Type US', () => {
    // As a CBCT device writes uncalibrated grey values: air near -940, soft tissue near 0.
    const grey = edit(head, (v) => Math.round(0.92 * v), { rescaleType: 'US' });
    const t = thresholds(grey);
    expect(t.scale?.hounsfield).toBe(false);
    expect(t.rescaleType).toBe('US');
    // The level moves with the values: 1770.5 HU is 1629 of these grey values (the soft-tissue peak
    // standing in for 0 HU lifts it by a few tens), not 1770.5.
    expect(t.teeth).toBeGreaterThan(0.92 * DENTITION_MIN_HU - 20);
    expect(t.teeth).toBeLessThan(DENTITION_MIN_HU - 50);
    expect(t.absent).toEqual({});
    const teeth = segmentTissue(grey, 'teeth', t);
    expect(teeth.band).toMatchObject({ inBand: 1 });
    // Stated as Hounsfield units (or not stated), the same values are taken as such.
    for (const rescaleType of ['HU', undefined]) {
      const said = thresholds({ ...grey, ...(rescaleType ? { rescaleType } : { rescaleType: undefined }) });
      expect(said.scale?.hounsfield, rescaleType).toBe(true);
      expect(said.rescaleType).toBeUndefined();
      expect(said.teeth).toBe(DENTITION_MIN_HU);
    }
  });
});

/**
 * The real scan as a small-field CBCT stores it: every voxel further than `radius` mm from the
 * slices' centre set to `value`, declared as Pixel Padding Value when `declared`.
 */
function outsideCylinder(
  v: Volume,
  radius: number,
  value: number,
  declared = true,
  /** The cylinder's axis from the slices' centre, mm along rows and columns. */
  [cx, cy] = [0, 0],
): Volume {
  const [nx, ny] = v.dims;
  const [sx, sy] = v.spacing;
  const out = (i: number, j: number): boolean =>
    Math.hypot((i - (nx - 1) / 2) * sx - cx, (j - (ny - 1) / 2) * sy - cy) > radius;
  return edit(v, (x, i, j) => (out(i, j) ? value : x), declared ? { padding: [value, value] } : {});
}

/**
 * The volume with its rows and slices swapped, as a stack of sagittal-like planes: voxel (i, j, k)
 * of the result is voxel (i, k, j) of `v`, and the directions follow.
 */
function acrossRows(v: Volume): Volume {
  const [nx, ny, nz] = v.dims;
  const data = new Int16Array(v.data.length);
  for (let k = 0, p = 0; k < ny; k++)
    for (let j = 0; j < nz; j++)
      for (let i = 0; i < nx; i++, p++) data[p] = v.data[i + nx * (k + ny * j)] as number;
  return {
    ...v,
    data,
    dims: [nx, nz, ny],
    spacing: [v.spacing[0], v.spacing[2], v.spacing[1]],
    colDir: v.sliceDir,
    sliceDir: v.colDir,
  };
}

describe('padding outside a round field of view is neither air nor tissue', () => {
  it('finds no padding in the real fixtures (their lowest value, -1024, is air)', () => {
    expect(thresholds(head).padding).toBeNull();
    expect(thresholds(phantom).padding).toBeNull();
  });

  it('refuses soft_tissue whose surface would be the wall of a 50 mm field of view, declared or far below air', () => {
    for (const [value, declared] of [
      [-1000, true],
      [-3024, true],
      [-3024, false],
      // At a value the head's air takes too, undeclared: found from where it lies, beyond 50 mm.
      [-1000, false],
    ] as const) {
      const fov = outsideCylinder(head, 50, value, declared);
      const t = thresholds(fov);
      expect(t.padding, `${value}`).toEqual([value, value]);
      if (value === -1000 && !declared) {
        // The circle through the last voxels inside it, within a pixel of the 50 mm cut.
        expect(t.roundField).toMatchObject({ value: -1000, axis: 2 });
        expect(Math.abs(t.roundField!.radiusMm - 50)).toBeLessThan(0.96);
      } else expect(t.roundField).toBeUndefined();
      // Taken as air, the wall was skin: 64 % of an accepted soft_tissue's area.
      expect(() => segmentTissue(fov, 'soft-tissue', t), `${value}`).toThrow(
        /^More of the surface soft_tissue would have lies on the edge of the scan's round field of view \(5\d %\) than against air \(3\d %\)/,
      );
      // The bone inside the field of view is still the skull's.
      expect(segmentTissue(fov, 'bone', t).components.kept).toBeGreaterThan(0);
    }
  });

  it('finds undeclared padding under a few stray voxels below it, and takes it for neither air nor bone', () => {
    // 18 voxels at -3500 (one in 100,000) hid the floor: the padding was taken for air and air for
    // soft tissue (in a review's cases, "bone" was 83 % soft tissue).
    const jaw = crop(head, [0, 256], [0, 256], [0, 27]);
    const fov = outsideCylinder(jaw, 50, -3024, false);
    const stray = edit(fov, (v, i, j, k) =>
      v !== -3024 && i % 37 === 0 && j % 41 === 0 && k % 9 === 0 ? -3500 : v,
    );
    expect(stray.data.filter((v) => v === -3500).length).toBe(18);
    const t = thresholds(stray);
    expect(t.padding).toEqual([-3024, -3024]);
    expect(t.scale).toMatchObject({ hounsfield: true });
    const bone = segmentTissue(stray, 'bone', t).components.keptVoxels;
    const bone0 = segmentTissue(fov, 'bone', thresholds(fov)).components.keptVoxels;
    expect(Math.abs(bone - bone0)).toBeLessThan(0.02 * bone0);
  });

  it('keeps the skin and airway of a field of view that holds the head (122 mm radius): padding is not air', () => {
    const t0 = thresholds(head);
    const skin = segmentTissue(head, 'soft-tissue', t0).components.keptVoxels;
    const airway = segmentTissue(head, 'airway', t0).components.keptVoxels;
    const fov = outsideCylinder(head, 122, -3024);
    const t = thresholds(fov);
    expect(Math.abs(segmentTissue(fov, 'soft-tissue', t).components.keptVoxels - skin)).toBeLessThan(
      0.001 * skin,
    );
    expect(Math.abs(segmentTissue(fov, 'airway', t).components.keptVoxels - airway)).toBeLessThan(
      0.01 * airway,
    );
  });

  it('takes undeclared -1000 for padding only beyond the field of view: inside, -1000 is air', () => {
    const t0 = thresholds(head);
    const skin = segmentTissue(head, 'soft-tissue', t0).components.keptVoxels;
    const airway = segmentTissue(head, 'airway', t0).components.keptVoxels;
    // Off the slices' centre by half a pixel, as a device may place its circle.
    const fov = outsideCylinder(head, 118, -1000, false, [0.48, -0.48]);
    const t = thresholds(fov);
    expect(t.padding).toEqual([-1000, -1000]);
    expect(t.roundField?.radiusMm).toBeGreaterThan(117);
    expect(segmentTissue(fov, 'soft-tissue', t).components.keptVoxels).toBeGreaterThan(0.99 * skin);
    expect(Math.abs(segmentTissue(fov, 'airway', t).components.keptVoxels - airway)).toBeLessThan(
      0.01 * airway,
    );
    // Corners that do not all hold one value are no padding: the real scans' noisy air.
    const corner = edit(fov, (v, i, j, k) => (i === 0 && j === 0 && k % 2 === 0 ? -990 : v));
    expect(thresholds(corner).padding).toBeNull();
  });

  it("finds an undeclared round field of view off the planes' centre, and across any axis of the stack", () => {
    const wall =
      /^More of the surface soft_tissue would have lies on the edge of the scan's round field of view \(4\d %\)/;
    // 6 and 4 mm off the centre: a field of view cropped or re-gridded before export.
    const off = outsideCylinder(head, 60, -1000, false, [6, -4]);
    const t = thresholds(off);
    const [nx, ny] = head.dims;
    const [sx, sy] = head.spacing;
    expect(t.roundField!.centreMm[0]).toBeCloseTo(((nx - 1) / 2) * sx + 6, 0);
    expect(t.roundField!.centreMm[1]).toBeCloseTo(((ny - 1) / 2) * sy - 4, 0);
    expect(() => segmentTissue(off, 'soft-tissue', t)).toThrow(wall);
    // The same field of view exported as sagittal planes: the cylinder runs along the rows.
    const fov = outsideCylinder(head, 60, -1000, false);
    const sagittal = acrossRows(fov);
    const ts = thresholds(sagittal);
    expect(ts.roundField).toMatchObject({ axis: 1 });
    expect(() => segmentTissue(sagittal, 'soft-tissue', ts)).toThrow(wall);
  });

  it('finds no round field of view where a head or a ball lies in air of one value, and takes clipped air for air', () => {
    // The real head with the air around it and its head holder set to -1024, as an export that
    // removes the background writes it: the edge of that air is the skin, not a cylinder's wall, and
    // that air is air.
    const tissue = new Uint8Array(head.data.length);
    for (let p = 0; p < tissue.length; p++) tissue[p] = (head.data[p] as number) > -500 ? 1 : 0;
    filterComponents(tissue, head.dims, keepLarge(1));
    const room = Uint8Array.from(tissue, (v) => 1 - v);
    filterComponents(room, head.dims, ({ touchesBorder }) => Uint8Array.from(touchesBorder));
    const bare = edit(head, (v, i, j, k) => (room[i + head.dims[0] * (j + head.dims[1] * k)] ? -1024 : v));
    expect(bare.data.filter((v) => v === -1024).length).toBeGreaterThan(0.5 * bare.data.length);
    const t = thresholds(bare);
    expect(t.padding).toBeNull();
    expect(t.roundField).toBeUndefined();
    // Air clipped to one value is still air: every class was refused ("no air clearly apart from
    // soft tissue") while that floor was left out of the splits as padding.
    expect(t.absent).toEqual({});
    expect(t.scale).toMatchObject({ hounsfield: true });
    const t0 = thresholds(head);
    for (const tissue of ['soft-tissue', 'bone', 'airway'] as const) {
      const made = segmentTissue(bare, tissue, t).components.keptVoxels;
      const made0 = segmentTissue(head, tissue, t0).components.keptVoxels;
      expect(Math.abs(made - made0), tissue).toBeLessThan(0.03 * made0);
    }
    // A ball of the head's values in air of -1000 fills a cylinder's planes only partly.
    const ball = edit(crop(head, [78, 178], [100, 200], [0, 100]), (v, i, j, k) =>
      Math.hypot(i - 49.5, (j - 49.5) * 1, ((k - 49.5) * 1.5) / 0.957) < 40 ? v : -1000,
    );
    expect(thresholds(ball).roundField).toBeUndefined();
  });

  it('leaves declared padding above bone (3071) out of the histogram and out of the skull', () => {
    // Counted as values, it hid the air peak and every class was refused; taken as bone, the skull
    // would wrap the field of view.
    const fov = outsideCylinder(head, 122, 3071);
    const t = thresholds(fov);
    expect(t.absent).toEqual({});
    const t0 = thresholds(head);
    expect(Math.abs(t.bone - t0.bone)).toBeLessThan(20);
    const bone = segmentTissue(fov, 'bone', t).components.keptVoxels;
    const bone0 = segmentTissue(head, 'bone', t0).components.keptVoxels;
    expect(Math.abs(bone - bone0)).toBeLessThan(0.02 * bone0);
  });
});

/** A seeded source of numbers in [0, 1) (mulberry32), so a noisy case is the same every run. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal number (Box-Muller). */
const gaussian = (random: () => number): number =>
  Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());

/** Voxels [i0, i1) x [j0, j1) x [k0, k1) of the real scan. */
function crop(v: Volume, [i0, i1]: number[], [j0, j1]: number[], [k0, k1]: number[]): Volume {
  const [nx, ny] = v.dims;
  const dims: [number, number, number] = [i1! - i0!, j1! - j0!, k1! - k0!];
  const data = new Int16Array(dims[0] * dims[1] * dims[2]);
  let o = 0;
  for (let k = k0!; k < k1!; k++)
    for (let j = j0!; j < j1!; j++)
      for (let i = i0!; i < i1!; i++) data[o++] = v.data[i + nx * (j + ny * k)] as number;
  return { ...v, data, dims };
}

describe('a small field of view on the jaws, with little air in it, still has a scale', () => {
  it('finds air, bone and teeth in a 100 or 150 mm round field of view 40 mm high (5 % of it air)', () => {
    // Otsu's first split parted soft tissue from bone here (at 360 to 430 HU): no air peak was found,
    // so no scale, and every class was refused, though the scan is in Hounsfield units.
    const jaw = crop(head, [0, 256], [0, 256], [0, 27]);
    for (const radius of [50, 75]) {
      const fov = outsideCylinder(jaw, radius, -3024);
      const t = thresholds(fov);
      expect(t.scale, `${radius}`).toMatchObject({ hounsfield: true });
      expect(t.air).toBeLessThan(-300);
      expect(t.bone).toBeGreaterThan(300);
      expect(t.absent, `${radius}`).toEqual({});
      expect(segmentTissue(fov, 'bone', t).components.kept).toBeGreaterThan(0);
      expect(segmentTissue(fov, 'teeth', t).band).toMatchObject({ inBand: 1 });
      expect(segmentTissue(fov, 'airway', t).components.kept).toBeGreaterThan(0);
      // Its skin is still refused: most of it would be the field of view's wall.
      expect(() => segmentTissue(fov, 'soft-tissue', t)).toThrow(/round field of view/);
      // Uncalibrated values saying so (0.92 x HU, Rescale Type US) have nothing to anchor a second
      // split: inverted values, or padding with a few voxels below it, gave scales there on which
      // "bone" was air. They are refused in words, as before.
      const grey = edit(fov, (v) => (v === -3024 ? v : Math.round(0.92 * v)), { rescaleType: 'US' });
      const g = thresholds(grey);
      expect(g.scale, `${radius} US`).toBeNull();
      expect(g.absent.bone?.message, `${radius} US`).toMatch(/^No bone or teeth can be told in this scan/);
    }
  });

  it('takes no foot of bone for soft tissue in an 80 mm field of view on the front teeth, in grey values (US)', () => {
    // The first split put air at 367 and took the foot of bone above it (388) for soft tissue: the
    // "skin" made was bone's outer surface (32 cm³) and the dentition level 2738. No scale is read
    // from such a peak, and grey values have nothing to anchor a second split: every class is refused.
    const jaw = crop(head, [0, 256], [0, 256], [0, 27]);
    const fov = outsideCylinder(jaw, 40, -3024, true, [0, 40]);
    const grey = edit(fov, (v) => (v === -3024 ? v : Math.round(0.92 * v)), { rescaleType: 'US' });
    const t = thresholds(grey);
    expect(t.scale).toBeNull();
    for (const tissue of ['bone', 'teeth', 'soft-tissue', 'airway'] as const)
      expect(t.absent[tissue], tissue).toBeDefined();
    // In Hounsfield units the same field of view is read: soft tissue near 40 HU, bone and teeth made.
    const hu = thresholds(fov);
    expect(hu.scale).toMatchObject({ hounsfield: true });
    expect(Math.abs(hu.scale!.soft)).toBeLessThan(100);
    expect(segmentTissue(fov, 'teeth', hu).components.kept).toBeGreaterThan(0);
  });
});

describe('values that run the wrong way (air highest) are refused, not made into a skull of air', () => {
  const inverted = /^The grey values of this scan look inverted, air brightest and bone darkest: /;

  it('refuses every class of the real head with its values inverted (Rescale Slope -1 on HU), saying why', () => {
    const t = thresholds(edit(head, (v) => -v));
    // Read as they were, the skull was the air around the head, filling the scan's box.
    for (const tissue of ['bone', 'teeth', 'soft-tissue', 'airway'] as const)
      expect(t.absent[tissue]?.message, tissue).toMatch(inverted);
    expect(t.absent.bone?.message).toMatch(
      /what would be bone covers 8\d % of the scan's outer faces, as only the air around a head does; and \d % of it lies far below what would be air, and nothing in a head is less dense than air; and its lowest values trail off over \d{3} grey values as bone does, while its highest lie within \d as air does\./,
    );
    expect(t.absent.bone?.action).toMatch(/^Check the Rescale Slope and Intercept/);
    // Also on another scale, and on its lowest 40 mm (the teeth and the maxilla) alone.
    expect(thresholds(edit(head, (v) => 2000 - Math.round(v / 2))).absent.bone?.message).toMatch(inverted);
    const jaw = crop(head, [0, 256], [0, 256], [0, 27]);
    expect(thresholds(edit(jaw, (v) => -v)).absent.bone?.message).toMatch(inverted);
  });

  it('refuses the lowest 40 mm of the real head inverted in a 122 mm field of view (44 % of its faces "bone")', () => {
    const jaw = crop(head, [0, 256], [0, 256], [0, 27]);
    const t = thresholds(
      outsideCylinder(
        edit(jaw, (v) => -v),
        122,
        -3024,
      ),
    );
    expect(t.absent.bone?.message).toMatch(
      /covers 4\d % of the scan's outer faces.*; and \d % of it lies far below what would be air/,
    );
  });

  it('makes no skull of air in inverted small fields of view on the jaws, noisy or not', () => {
    // From a review's sweep: with 100 HU of noise only values far below air showed strongly (tails 5
    // to 8 times, bone on 15 to 29 % of the faces) and a skull of air was made; without noise a second
    // split read inverted bone as air in Hounsfield units (-949) and made one too.
    const jaw = crop(head, [0, 256], [0, 256], [0, 27]);
    const cases: [string, number, number, number, [number, number], number, number, boolean][] = [
      // name, slope, intercept, radius mm, centre mm from the slices' centre, noise HU, padding, declared
      ['-0.92 HU, 120 mm, noise 100', -0.92, 0, 60, [0, 63], 100, 3024, true],
      ['1000 - HU, 120 mm, noise 100', -1, 1000, 60, [0, 63], 100, 3024, true],
      ['-0.92 HU, 100 mm, noise 100', -0.92, 0, 50, [-26, 46], 100, -3024, true],
      ['-0.92 HU, 120 mm, noise 50', -0.92, 0, 60, [0, 31], 50, 3024, true],
      ['-0.92 HU, 120 mm, no noise', -0.92, 0, 60, [0, 31], 0, -3024, false],
    ];
    for (const [name, a, b, radius, centre, noise, pad, declared] of cases) {
      const random = seeded(7);
      const grey = edit(jaw, (v) => Math.round(a * (v + noise * gaussian(random)) + b));
      const fov = outsideCylinder(grey, radius, pad, declared, centre);
      expect(thresholds(fov).absent.bone, name).toBeDefined();
    }
  });

  it('refuses an inverted 50 mm box at the edge of the head: bone on 83 % of its faces, tails 156 times', () => {
    // Nothing lies far below its "air": the other two signs refuse it together.
    const box = crop(head, [2, 54], [41, 91], [51, 80]);
    expect(thresholds(edit(box, (v) => -v)).absent.bone?.message).toMatch(
      /covers 83 % of the scan's outer faces, as only the air around a head does; and its lowest values trail off/,
    );
  });

  it("refuses inverted boxes off the head's centre whose values far below air come with one weaker sign", () => {
    // Each made a "skull" of the air around the head when not refused: 28k and 118k voxels.
    const inv = (i: number[], d: number[]): Volume =>
      edit(crop(head, [i[0]!, i[0]! + d[0]!], [i[1]!, i[1]! + d[1]!], [i[2]!, i[2]! + d[2]!]), (v) => -v);
    expect(thresholds(inv([90, 31, 42], [92, 93, 59])).absent.bone?.message).toMatch(/trail off over/);
    expect(thresholds(inv([72, 7, 11], [99, 107, 78])).absent.bone?.message).toMatch(/covers 33 %/);
  });

  it('keeps upright crops that show one sign alone, one of which the earlier rule refused as inverted', () => {
    // From a sweep of crops at least 30 mm in every direction (smaller scans are refused before any
    // segmentation): bone on 58 % and 44 % of the faces of a cube of the phantom's plastic; half of a
    // crop with little air "far below air" (its soft tissue taken for air); low tails 12 times the high.
    const at = (v: Volume, [i, j, k]: number[], [a, b, c]: number[]): Volume =>
      crop(v, [i!, i! + a!], [j!, j! + b!], [k!, k! + c!]);
    const cases: [string, Volume][] = [
      ['phantom 239 247 27', at(phantom, [239, 247, 27], [70, 90, 30])],
      ['phantom 214 252 20', at(phantom, [214, 252, 20], [86, 87, 45])],
      ['head 156 6 36', at(head, [156, 6, 36], [48, 37, 27])],
      ['head 118 30 0', at(head, [118, 30, 0], [32, 42, 23])],
    ];
    for (const [name, v] of cases)
      expect(thresholds(v).absent.bone?.message ?? '', name).not.toMatch(inverted);
  });

  it('keeps the real fixtures and crops of them as they are, the jaws cropped tightly too', () => {
    const [nx, ny, nz] = phantom.dims;
    const cases: [string, Volume][] = [
      ['head', head],
      ['phantom', phantom],
      ['lowest 40 mm', crop(head, [0, 256], [0, 256], [0, 27])],
      ['80 x 80 voxels on the teeth', crop(head, [90, 170], [150, 230], [0, 27])],
      ['100 x 100 voxels on the jaws', crop(head, [78, 178], [130, 230], [0, 40])],
      ['uncalibrated copy', edit(head, (v) => Math.floor((v + 1024) / 2) + 200)],
    ];
    for (let k0 = 0; k0 + 35 <= nz; k0 += 35)
      cases.push([`phantom slab ${k0}`, crop(phantom, [0, nx], [0, ny], [k0, k0 + 35])]);
    for (const [name, v] of cases) expect(thresholds(v).absent, name).toEqual({});
  });
});
