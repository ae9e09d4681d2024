// What a scan's values mean decides what its thresholds find: the unit its files state (Rescale
// Type), how much air a small field of view holds, and which way round its values run (the padding
// outside a field of view: fov-padding.test.ts). Variants of the real head CT built in memory, as
// the audit built them as files.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Volume } from '../../scans/volume.js';
import { DENTITION_MIN_HU } from './dentition.js';
import { segmentTissue } from './tissue.js';
import {
  crop,
  edit,
  gaussian,
  outsideCylinder,
  realScans,
  seeded,
  thresholds,
} from './value-meaning.test-support.js';

let head: Volume;
let phantom: Volume;

beforeAll(async () => {
  ({ head, phantom } = await realScans());
}, 120_000);

describe('Rescale Type: a CT in another unit is not taken for Hounsfield units', () => {
  it('scales the dentition level from air and soft tissue when the values are 0.92 x HU, Rescale Type US', () => {
    // As a CBCT device writes uncalibrated grey values: air near -940, soft tissue near 0.
    const grey = edit(head, (v) => Math.round(0.92 * v), { rescaleType: 'US' });
    const t = thresholds(grey);
    expect(t.scale?.hounsfield).toBe(false);
    expect(t.rescaleType).toBe('US');
    // The level moves with the values: 1770.5 HU is 1629 of these grey values, not 1770.5.
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

describe("uncalibrated grey values are scaled to the teeth's level within the head's soft-tissue spread", () => {
  // A review: the soft-tissue peak stood for water (0 HU), but a head's lies at +24 to +42 HU here;
  // the level came out 60 HU too high, 3 mm off the roots and a sixth of the teeth gone.
  it('as a CBCT stores them (0.8 x HU + 1000), and as Hounsfield units a header calls US', () => {
    const cases = [
      {
        name: 'cbct',
        grey: edit(head, (v) => Math.round(0.8 * v + 1000), { rescaleType: 'US' }),
        hu: (g: number) => (g - 1000) / 0.8,
      },
      { name: 'HU called US', grey: edit(head, (v) => v, { rescaleType: 'US' }), hu: (g: number) => g },
    ];
    for (const c of cases) {
      const t = thresholds(c.grey);
      expect(t.scale?.hounsfield, c.name).toBe(false);
      // 20 HU is about 1 mm of the surface here.
      expect(Math.abs(c.hu(t.teeth!) - DENTITION_MIN_HU), c.name).toBeLessThan(25);
    }
  });
});

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
