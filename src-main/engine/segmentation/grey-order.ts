/**
 * Whether a scan's grey values run the right way: air lowest, bone highest. A real head CT exported
 * with its values inverted (Rescale Slope -1 applied to Hounsfield units, so air is the highest
 * value) still shows two peaks and a valley, so a scale is read from them; then "air" is soft tissue,
 * "bone" the air around the head, and the skull came out as the scan's box of air (5607 cm³). Two
 * signs tell it, each from what a head physically is: nothing in a head is far less dense than air,
 * and the densest class lies inside the head, not over the scan's outer faces, where air is.
 */
import { shareBelow, type Absence, type Absent } from './class-evidence.js';
import type { GreyScale } from './dentition.js';
import { BELOW_AIR, type PaddingRange } from './fov-padding.js';
import type { Histogram } from './histogram.js';

/**
 * Largest share of the scan's outer faces (padding left out) that the densest class may cover. The
 * real head CT 1 %, the phantom 1 %, 3125 crops of both (30 to 200 mm across) at most 48 %, a crop of
 * brain alone 33 %; the real head inverted 83 %, its lowest 40 mm inverted 60 %.
 */
const MAX_DENSE_FACE_SHARE = 0.5;

/**
 * Largest share of a scan (padding left out) that may lie far below air (BELOW_AIR of the distance
 * from air to soft tissue) before the values are suspect: the real head CT and the phantom 0 %, with
 * 250 HU of noise added 0.9 %; the real head inverted 5.8 % (its bone, now below its soft tissue).
 * Alone it is no proof: in a crop with little air, soft tissue may outnumber air and be taken for it,
 * and then the real air lies far below (74 of those 3125 crops). So it counts with a second sign: the
 * would-be bone over more than a quarter of the outer faces (none of the crops; most inverted ones),
 * or the lowest values trailing off far wider than the highest (below).
 */
const MAX_BELOW_AIR_SHARE = 0.03;
const SOME_DENSE_FACE_SHARE = 0.25;

/**
 * How much wider the spread of the lowest 2 % of a scan's values (from its 0.5th to its 2nd
 * percentile) may be than that of the highest 2 % before the low end looks like bone: air is one
 * narrow peak (the real head: 4 HU), bone and teeth trail off over hundreds (the real head: 358 HU).
 */
const TAIL_RATIO = 4;

/** Share of the voxels on the box's six faces above `level`, padding values left out. */
export function faceShareAbove(
  data: Int16Array | Float32Array,
  dims: [number, number, number],
  level: number,
  padding: PaddingRange | null,
): number {
  const [nx, ny, nz] = dims;
  const [lo, hi] = padding ?? [Infinity, -Infinity];
  let n = 0;
  let above = 0;
  const count = (p: number): void => {
    const v = data[p] as number;
    if (v >= lo && v <= hi) return;
    n++;
    if (v > level) above++;
  };
  for (let k = 0; k < nz; k++) {
    const whole = k === 0 || k === nz - 1;
    for (let j = 0; j < ny; j++) {
      const row = (k * ny + j) * nx;
      if (whole || j === 0 || j === ny - 1) for (let i = 0; i < nx; i++) count(row + i);
      else {
        count(row);
        count(row + nx - 1);
      }
    }
  }
  return n === 0 ? 0 : above / n;
}

const pct = (v: number): string => `${Math.round(v * 100)} %`;

/** The value below which a share `p` of the voxels lies (padding left out), to a bin. */
function quantile(h: Histogram, p: number, padding: boolean): number {
  const from = padding ? 1 : 0;
  let total = 0;
  for (let b = from; b < h.counts.length; b++) total += h.counts[b] as number;
  let seen = 0;
  for (let b = from; b < h.counts.length; b++) {
    seen += h.counts[b] as number;
    if (seen >= p * total) return h.min + b * h.binWidth;
  }
  return h.min + h.counts.length * h.binWidth;
}

/**
 * The refusal of every class when the values look inverted, or null. `faces` is faceShareAbove at
 * the bone level, when the volume's shape is known.
 */
export function invertedValues(
  h: Histogram,
  t: { padding: boolean },
  scale: GreyScale | null,
  faces: number | null,
): Absent | null {
  if (!scale) return null;
  const why: string[] = [];
  const farBelow = shareBelow(h, scale.air - BELOW_AIR * (scale.soft - scale.air), t.padding);
  const spread = (p0: number, p1: number): number =>
    Math.max(h.binWidth, quantile(h, p1, t.padding) - quantile(h, p0, t.padding));
  const trailsLow = spread(0.005, 0.02) > TAIL_RATIO * spread(0.98, 0.995);
  if (faces !== null && faces > MAX_DENSE_FACE_SHARE)
    why.push(
      `what would be bone covers ${pct(faces)} of the scan's outer faces, as only the air around a head does`,
    );
  if (farBelow > MAX_BELOW_AIR_SHARE && ((faces !== null && faces > SOME_DENSE_FACE_SHARE) || trailsLow))
    why.push(
      `${pct(farBelow)} of it lies far below what would be air${trailsLow ? ', spread wide as bone is' : ''}, and nothing in a head is less dense than air`,
    );
  if (why.length === 0) return null;
  const refusal: Absence = {
    message: `The grey values of this scan look inverted, air brightest and bone darkest: ${why.join('; and ')}. Taken as they are, "bone" would be the air around the head, so no skull, teeth, skin or airway can be found in it. Its Rescale Slope and Rescale Intercept may have turned the values upside down.`,
    action:
      'Check the Rescale Slope and Intercept the scan was exported with (air must come out lowest, near -1000 HU, and bone highest), and export it again with the values the scanner recorded.',
  };
  return { bone: refusal, teeth: refusal, 'soft-tissue': refusal, airway: refusal };
}
