/**
 * Whether a scan's grey values run the right way: air lowest, bone highest. A real head CT exported
 * with its values inverted (Rescale Slope -1 applied to Hounsfield units, so air is the highest
 * value) still shows two peaks and a valley, so a scale is read from them; then "air" is soft tissue,
 * "bone" the air around the head, and the skull came out as the scan's box of air (5607 cm³). Signs
 * of what a head physically is tell it: the densest class lies inside the head, not over the scan's
 * outer faces where air is; nothing in a head is far less dense than air; air is one narrow peak at
 * the bottom of the values, bone trails off at the top.
 */
import { shareBelow, valueAtShare, type Absence, type Absent } from './class-evidence.js';
import type { GreyScale } from './dentition.js';
import { BELOW_AIR, type PaddingRange } from './fov-padding.js';
import type { Histogram } from './histogram.js';

/*
 * Three signs of inverted values follow, each from what a head physically is. None refuses alone:
 * each alone was seen on upright crops of the real scans. Values far below air refuse with either of
 * the others shown weakly; bone on the faces and wide low tails refuse together. A sweep of 28,000
 * crops of the real head CT and the phantom, 20 to 250 mm across and each also inverted, set the
 * levels. With this code, of the 15,359 upright crops at least 30 mm in every direction (a smaller
 * scan is refused before segmentation: MIN_EXTENT_MM) that have a scale, none is refused; of the
 * 19,976 inverted ones, 12,045 have no scale (every class is refused in words) and 6,857 of the other
 * 7,931 are refused here. Of the 1,074 left, 1,021 are under 60 mm, mostly boxes inside the head with
 * no air around them. A second sweep of 16,500 other crops refused no upright crop either. Inverted
 * small fields of view with 100 HU of noise show values far below air with tails only 5 to 8 times
 * the high ones, and bone on 15 to 29 % of the faces. value-meaning.test.ts keeps the cases.
 */

/**
 * The densest class covers the scan's outer faces, where air is: more than SOME of them (padding left
 * out) with values far below air, more than MANY with wide low tails. Upright: the real head CT and the
 * phantom 1 %; crops up to 58 % alone (a 30 mm cube of the phantom's plastic bone), 18 % with values
 * far below air, 25 % with tails 5 times the high ones. Inverted: the real head 83 %, in a 122 mm field
 * of view 72 %, its lowest 40 mm 60 %, the phantom cropped to 150 mm 90 %.
 */
const SOME_DENSE_FACE_SHARE = 0.25;
const MANY_DENSE_FACE_SHARE = 0.3;

/**
 * Much of the scan lies far below air (BELOW_AIR of the distance from air to soft tissue), where
 * nothing in a head is: more than this share (padding left out). Inverted: the real head 5.8 %, its
 * lowest 40 mm 6.6 %, small fields of view 7 to 12 %. Upright crops with little air reach 52 % alone:
 * soft tissue is taken for air and the real air then lies far below.
 */
const MAX_BELOW_AIR_SHARE = 0.03;

/**
 * The lowest values trail off as bone does, the highest sit in one narrow peak as air does: the
 * spread of the lowest 2 % of the values (0.5th to 2nd percentile) more than SOME times that of the
 * highest 2 % with values far below air, more than MANY times with bone on the faces. Upright: the real
 * head 0.01; crops up to 12 alone, 2.2 with values far below air, 0.2 with bone on 30 % of the faces (a
 * scan whose brightest 2 % are clipped to one value could go higher alone). Inverted: the real head 367
 * (184 on another scale), its lowest 40 mm 452, the phantom cropped to 150 mm 71.
 */
const SOME_TAIL_RATIO = 4;
const MANY_TAIL_RATIO = 10;

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

/**
 * Share of the voxels (padding left out) far below air on this scale (BELOW_AIR of the distance from
 * air to soft tissue), where nothing in a head is.
 */
export function shareFarBelowAir(h: Histogram, scale: GreyScale, padding: boolean): number {
  return shareBelow(h, scale.air - BELOW_AIR * (scale.soft - scale.air), padding);
}

const pct = (v: number): string => `${Math.round(v * 100)} %`;

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
  const farBelow = shareFarBelowAir(h, scale, t.padding);
  const spread = (p0: number, p1: number): number =>
    Math.max(h.binWidth, valueAtShare(h, p1, t.padding) - valueAtShare(h, p0, t.padding));
  const [low, high] = [spread(0.005, 0.02), spread(0.98, 0.995)];
  const dense = faces ?? 0;
  const below = farBelow > MAX_BELOW_AIR_SHARE;
  const inverted =
    (below && (dense > SOME_DENSE_FACE_SHARE || low > SOME_TAIL_RATIO * high)) ||
    (dense > MANY_DENSE_FACE_SHARE && low > MANY_TAIL_RATIO * high);
  if (!inverted) return null;
  const why: string[] = [];
  if (dense > SOME_DENSE_FACE_SHARE)
    why.push(
      `what would be bone covers ${pct(dense)} of the scan's outer faces, as only the air around a head does`,
    );
  if (below)
    why.push(
      `${pct(farBelow)} of it lies far below what would be air, and nothing in a head is less dense than air`,
    );
  if (low > SOME_TAIL_RATIO * high)
    why.push(
      `its lowest values trail off over ${Math.round(low)} grey values as bone does, while its highest lie within ${Math.round(high)} as air does`,
    );
  const refusal: Absence = {
    message: `The grey values of this scan look inverted, air brightest and bone darkest: ${why.join('; and ')}. Taken as they are, "bone" would be the air around the head, so no skull, teeth, skin or airway can be found in it. Its Rescale Slope and Rescale Intercept may have turned the values upside down.`,
    action:
      'Check the Rescale Slope and Intercept the scan was exported with (air must come out lowest, near -1000 HU, and bone highest), and export it again with the values the scanner recorded.',
  };
  return { bone: refusal, teeth: refusal, 'soft-tissue': refusal, airway: refusal };
}
