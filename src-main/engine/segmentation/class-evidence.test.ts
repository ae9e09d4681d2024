import { beforeAll, describe, expect, it } from 'vitest';
import type { Volume } from '../../scans/volume.js';
import { bandProfile } from './dentition.js';
import { resolutionRefusal } from './class-evidence.js';
import { segmentTissue } from './tissue.js';
import { crop, edit, realScans, thresholds } from './value-meaning.test-support.js';

let head: Volume;
let phantom: Volume;

beforeAll(async () => {
  ({ head, phantom } = await realScans());
}, 120_000);

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

  it('says so when signed values were read as unsigned (air at 64,512), for every class', () => {
    // A review: such a scan was refused as having "no bone", and a skin "against no air".
    // As the volume reader holds unsigned 16-bit values: in floats (an Int16Array would wrap them back).
    const wrapped = { ...head, data: Float32Array.from(head.data, (v) => (v < 0 ? v + 65536 : v)) };
    const t = thresholds(wrapped);
    expect(t.absent.bone?.message).toMatch(
      /^The values of this scan lie at both ends of the range of 16-bit numbers \(\d+ % below 16,384, \d+ % above 49,152\) with nothing between: negative values read as unsigned ones look so/,
    );
    for (const c of ['teeth', 'airway', 'soft-tissue'] as const) expect(t.absent[c]).toEqual(t.absent.bone);
    expect(t.absent.bone?.action).toMatch(/Pixel Representation/);
    // The same values stored unsigned the usual way (HU + 1024) are a scan like any other.
    expect(thresholds({ ...head, data: Float32Array.from(head.data, (v) => v + 1024) }).absent).toEqual({});
  });

  it('keeps an uncalibrated copy of the real head working: teeth where they are, nothing refused', () => {
    // As a CBCT device without Hounsfield calibration might write it: (HU + 1024) / 2 + 200.
    const grey = edit(head, (v) => Math.floor((v + 1024) / 2) + 200);
    const t = thresholds(grey);
    expect(t.scale?.hounsfield).toBe(false);
    expect(t.absent).toEqual({});
    const teeth = segmentTissue(grey, 'teeth', t);
    expect(bandProfile(teeth.mask, grey)).toMatchObject({ inBand: 1 });
    expect(bandProfile(teeth.mask, grey).height).toBeLessThanOrEqual(20);
    expect(teeth.place).toMatchObject({ loose: 0 });
  });

  it('leaves bone as dense as the dentition level but without enamel out of the teeth', () => {
    // The real head read 30 and 60 HU high (a calibration off by that much): specks of the skull base
    // and the cheekbones, 35 to 55 mm above the teeth, passed the 1770.5 HU level in pieces of 10 mm³
    // and more, joined to bone and a speck beside the teeth, and became pieces of "all_teeth".
    for (const offset of [0, 30, 60]) {
      const v = edit(head, (x) => x + offset);
      const teeth = segmentTissue(v, 'teeth', thresholds(v));
      expect(bandProfile(teeth.mask, v).height, `+${offset} HU`).toBeLessThanOrEqual(20);
      expect(teeth.place?.compact, `+${offset} HU`).toBe(offset === 0 ? 0 : offset === 30 ? 5 : 7);
      expect(teeth.components.kept, `+${offset} HU`).toBeGreaterThanOrEqual(5);
    }
    // Blurred (a Gaussian of 1.8 voxels: partial volume, a soft reconstruction), the crowns of one side
    // keep no enamel above 1988 HU; at the height of the other side's, they are still teeth (a second
    // review: the whole left side was left out).
    const blurred = blur(head, 1.8);
    const soft = segmentTissue(blurred, 'teeth', thresholds(blurred));
    expect(soft.place?.compact).toBe(0);
    expect(soft.components.kept).toBeGreaterThanOrEqual(2);
    // Above the teeth only (slices 20 mm and more above them), read 60 HU high: no piece holds enamel.
    const [nx, ny, nz] = head.dims;
    const skullBase = edit(crop(head, [0, nx], [0, ny], [14, nz]), (x) => x + 60);
    expect(() => segmentTissue(skullBase, 'teeth', thresholds(skullBase))).toThrow(
      /^The densest tissue of this scan \(.*\) cannot be shown to be teeth: none of its pieces holds enamel, denser than any compact bone \(1988 HU\), as a tooth's crown does\. It is compact bone, or teeth the scan blurs too much to tell from it; so no teeth mesh was made\.$/,
    );
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

/** The volume blurred by a Gaussian of `sigma` voxels along each axis (separable, edges clamped). */
function blur(v: Volume, sigma: number): Volume {
  const r = Math.ceil(3 * sigma);
  const w = Array.from({ length: 2 * r + 1 }, (_, k) => Math.exp(-((k - r) ** 2) / (2 * sigma * sigma)));
  const sum = w.reduce((a, b) => a + b, 0);
  const [nx, ny, nz] = v.dims;
  let src = Float32Array.from(v.data);
  for (const [stride, n] of [
    [1, nx],
    [nx, ny],
    [nx * ny, nz],
  ] as const) {
    const out = new Float32Array(src.length);
    for (let p = 0; p < src.length; p++) {
      const at = Math.floor(p / stride) % n;
      let acc = 0;
      for (let k = -r; k <= r; k++) {
        const q = Math.min(n - 1, Math.max(0, at + k));
        acc += w[k + r]! * src[p + (q - at) * stride]!;
      }
      out[p] = acc / sum;
    }
    src = out;
  }
  return { ...v, data: Int16Array.from(src, (x) => Math.round(x)) };
}

describe('the voxel size all_teeth needs', () => {
  it('names what is coarse: the pixels or the slices', () => {
    // A review: 2.8 mm pixels with 1.5 mm slices were told to get thinner slices.
    const pixels = resolutionRefusal('teeth', [2.8, 2.8, 1.5]);
    expect(pixels?.message).toMatch(/^The pixels are 2\.8 mm apart in this scan/);
    expect(pixels?.action).toMatch(/smaller pixels/);
    expect(resolutionRefusal('teeth', [0.5, 0.5, 3])?.action).toMatch(/thinner slices/);
    expect(resolutionRefusal('teeth', [0.5, 0.5, 2.5])).toBeNull();
    expect(resolutionRefusal('bone', [3, 3, 7.5])).toBeNull();
  });
});
