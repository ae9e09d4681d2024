// Padding outside a round field of view is neither air nor tissue: declared, a constant floor far
// below air, or one value filling everything beyond a circle (round-field.ts). Variants of the real
// head CT built in memory.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Volume } from '../../scans/volume.js';
import { filterComponents, keepLarge } from './components.js';
import { segmentTissue } from './tissue.js';
import {
  acrossRows,
  crop,
  edit,
  outsideCylinder,
  realScans,
  thresholds,
  turnedInPlane,
} from './value-meaning.test-support.js';

let head: Volume;
let phantom: Volume;

beforeAll(async () => {
  ({ head, phantom } = await realScans());
}, 120_000);

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
        /^More of soft_tissue's surface would lie on the edge of the scan's round field of view \(5\d %\) than against air \(3\d %\)/,
      );
      // The bone inside the field of view is still the skull's.
      expect(segmentTissue(fov, 'bone', t).components.kept).toBeGreaterThan(0);
    }
  });

  it('refuses the wall of a field of view whose edge blends padding and image: exported on a turned grid, or smoothed', () => {
    // Cut at the padding value's voxels alone, the blended rim was air against tissue, and the wall
    // of a 150 mm field of view turned 5 degrees or more was made as skin, 46 % of its area (a review).
    const jaws = crop(head, [0, 256], [0, 256], [0, 74]);
    const wall =
      /^More of soft_tissue's surface would lie on the edge of the scan's round field of view \(3\d %\) than against air \(\d+ %\)/;
    for (const value of [-1024, -3024])
      for (const deg of [5, 30]) {
        const turned = turnedInPlane(outsideCylinder(jaws, 75, value, false), deg, value);
        expect(() => segmentTissue(turned, 'soft-tissue', thresholds(turned)), `${value} ${deg}`).toThrow(
          wall,
        );
      }
    // Smoothed three times (3 x 3 in-plane): the edge blends over a few voxels.
    let smooth = outsideCylinder(jaws, 75, -1024, false);
    for (let n = 0; n < 3; n++) smooth = boxSmoothed(smooth);
    expect(() => segmentTissue(smooth, 'soft-tissue', thresholds(smooth))).toThrow(
      /no soft-tissue mesh was made/,
    );
    // Skin inside a larger field of view on a turned grid is still skin.
    const wide = turnedInPlane(outsideCylinder(head, 100, -1000, false), 30, -1000);
    expect(segmentTissue(wide, 'soft-tissue', thresholds(wide)).components.kept).toBeGreaterThan(0);
    // Seven segmentations of real volumes: about 30 s on a quiet machine, more with both cores busy.
  }, 180_000);

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
      /^More of soft_tissue's surface would lie on the edge of the scan's round field of view \(4\d %\)/;
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

/** Each slice's pixels averaged with their in-plane neighbours (3 x 3, the slice's edge its own). */
function boxSmoothed(v: Volume): Volume {
  const [nx, ny] = v.dims;
  return edit(v, (_, i, j, k) => {
    let sum = 0;
    let count = 0;
    for (let b = Math.max(0, j - 1); b <= Math.min(ny - 1, j + 1); b++)
      for (let a = Math.max(0, i - 1); a <= Math.min(nx - 1, i + 1); a++, count++)
        sum += v.data[a + nx * (b + ny * k)] as number;
    return Math.round(sum / count);
  });
}
