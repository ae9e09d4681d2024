/**
 * The air and bone levels of a scan's histogram, and the grey scale their peaks give: Otsu's splits,
 * with the floor of the histogram taken for padding or for air, metal left out, and the scans of two
 * values (a phantom made on a computer) read as they are. deriveThresholds (tissue.ts) builds on them.
 */
import { airApartFromTissue, BONE_MIN_HU } from './class-evidence.js';
import { findGreyScale, type GreyScale } from './dentition.js';
import { shareFarBelowAir } from './grey-order.js';
import { otsuThreshold, shareFrom, withoutFrom, type Histogram } from './histogram.js';

/**
 * Nearest the soft-tissue peak may sit to the lower end of the range it is looked for in (between the
 * air and bone levels), as a share of that range. Nearer, it is the shoulder of a larger peak under
 * the air level, not a peak of its own (a scale in Hounsfield units rests on air alone). The real
 * head CT: 49 %; an 80 mm field of view on its front teeth in grey values (Rescale Type US): 3.5 %,
 * and its "soft tissue" was the foot of bone.
 */
const SOFT_PEAK_MIN_INSIDE = 0.15;

/**
 * Largest share of a scan (padding left out) that may lie far below air (BELOW_AIR of the distance
 * from air to soft tissue) for a second split to stand as Hounsfield units: in a CT nothing but padding
 * is below air. Upright small fields of view on the real jaws: 0 %; inverted ones that a second split
 * read as Hounsfield units (their bone taken for air): 0.55 to 1 %.
 */
const SECOND_SPLIT_MAX_BELOW_AIR = 0.001;

/**
 * The top of a CT's 12-bit Hounsfield range (4095 - 1024): enamel reaches about 3000 HU; a 12-bit
 * scanner clips metal here, and above it an extended scale shows only metal.
 */
const HU_METAL = 3071;
/**
 * The most of a scan above HU_METAL taken for metal without more: dental implants and crowns are well
 * under 1 % of a head. More is metal only where the rest reads as Hounsfield units (withoutMetal).
 */
const METAL_MAX_SHARE = 0.01;

/** The lowest value Hounsfield units give air: -1024, the 12-bit offset (-1000 on some devices). */
const HU_AIR_FLOOR: readonly [number, number] = [-1100, -950];

/**
 * A histogram that may hold Hounsfield units, without what lies from HU_METAL up (metal: see
 * withoutFrom). Where much lies there (METAL_MAX_SHARE and more), only when the rest then reads as
 * Hounsfield units (air and soft tissue where they sit): a CBCT stored as CT without a Rescale Type
 * may use any grey values, and a review's, doubled or shifted past 3071, lost its soft tissue and bone;
 * but a dental scan with many crowns and implants was refused "for contrast" (a review: 1.4 % of the
 * real head at 20,000).
 */
export function withoutMetal(h: Histogram): Histogram {
  const kept = withoutFrom(h, HU_METAL);
  if (kept === h || shareFrom(h, HU_METAL) < METAL_MAX_SHARE) return kept;
  return splitLevels(kept, true)?.split.scale?.hounsfield ? kept : h;
}

/** At most this many distinct values: a scan made on a computer, without noise. */
const FEW_VALUES = 8;

/** The air and bone levels of a histogram (see airAndBone), or null where it has too little contrast. */

export function splitLevels(
  h: Histogram,
  huPossible: boolean,
): { floorSpike: boolean; split: ReturnType<typeof airAndBone> } | null {
  const total = h.counts.reduce((a, b) => a + b, 0);
  const spike = (h.counts[0] as number) > 0.01 * total && h.counts.length > 2;
  // A spike at the floor is padding only when air, tissue and bone are still above it. In a scan
  // without noise (a phantom made on a computer: air one value, tissue another, bone a third) they
  // are not: there the floor is the air, and leaving it out left "too little contrast" to split. A
  // scan of a few values in all has no noise: its floor is its air (declared padding is out already);
  // taken for padding on a scale not in Hounsfield units, its tissue was read as air, its bone as
  // tissue and its teeth as bone (a review).
  let values = 0;
  for (let b = 0; b < h.counts.length && values <= FEW_VALUES; b++) if ((h.counts[b] as number) > 0) values++;
  const order = !spike ? [false] : values <= FEW_VALUES ? [false, true] : [true, false];
  for (const floorSpike of order) {
    const first = otsuThreshold(h, floorSpike ? { above: h.min } : {});
    const firstBone = first === null ? null : otsuThreshold(h, { above: first });
    if (first !== null && firstBone !== null)
      return { floorSpike, split: airAndBone(h, first, firstBone, floorSpike, huPossible) };
    if (first !== null && !floorSpike) return { floorSpike, split: twoValues(h, first, huPossible) };
  }
  return null;
}

/** Below this, a value is air, whatever else a scan holds (fat is -100 HU, lung -500 to -900). */
const NOT_AIR_HU = -500;

/**
 * The levels of a scan of two values and nothing between (a ball of one density in air, made on a
 * computer): no third class to split. In Hounsfield units, with the lower value air, the denser one
 * is bone from BONE_MIN_HU up (air and bone one level, halfway) and soft tissue below it (nothing
 * bone). On other scales nothing tells what the denser value is: no scale, and refusals in words.
 */
function twoValues(
  h: Histogram,
  split: number,
  huPossible: boolean,
): { air: number; bone: number; scale: GreyScale | null } {
  let top = h.counts.length - 1;
  while (top > 0 && h.counts[top] === 0) top--;
  const lowest = h.min;
  const highest = h.min + top * h.binWidth;
  // The denser value must be no air itself: a blank scan of air (-1000) in padding of -1024 is two
  // values too, and its "skin" was the box (a review).
  if (!huPossible || Math.abs(lowest + 1000) > 100 || highest < NOT_AIR_HU)
    return { air: split, bone: split, scale: null };
  const scale: GreyScale = { air: lowest, soft: 0, hounsfield: true };
  const bone = highest >= BONE_MIN_HU ? split : highest + h.binWidth / 2;
  return { air: split, bone, scale };
}

/**
 * The air and bone levels with a floor spike at air's value in Hounsfield units counted as air, when
 * they then give a Hounsfield scale; null otherwise.
 */
export function floorAsAir(h: Histogram): ReturnType<typeof airAndBone> | null {
  if (h.min < HU_AIR_FLOOR[0] || h.min > HU_AIR_FLOOR[1]) return null;
  const air = otsuThreshold(h);
  const bone = air === null ? null : otsuThreshold(h, { above: air });
  if (air === null || bone === null) return null;
  const found = airAndBone(h, air, bone, false, true);
  return found.scale?.hounsfield ? found : null;
}

/**
 * The air and bone levels, and the scale their peaks give. Otsu's first split parts the two largest
 * populations: air from tissue in a head with air around it, but soft tissue from bone when air is a
 * small share (a small field of view on the jaws: 5 % of it), and then no scale was found though the
 * scan is in Hounsfield units. So when the first split gives no scale, or a calibrated CT's is not in
 * Hounsfield units, its lower class is split again, air from soft tissue. That is kept only when it is
 * in Hounsfield units with nothing far below its air: on other scales nothing anchors it, and inverted
 * values, or padding a few stray voxels lie below, gave scales on which "bone" was air.
 */
function airAndBone(
  h: Histogram,
  air: number,
  bone: number,
  padding: boolean,
  huPossible: boolean,
): { air: number; bone: number; scale: GreyScale | null } {
  const scale = scaleOf(h, air, bone, padding, huPossible);
  if (!huPossible || scale?.hounsfield) return { air, bone, scale };
  const lower = otsuThreshold(h, padding ? { above: h.min, below: air } : { below: air });
  const upper = lower === null ? null : otsuThreshold(h, { above: lower });
  if (lower === null || upper === null) return { air, bone, scale };
  const again = scaleOf(h, lower, upper, padding, huPossible);
  if (again?.hounsfield && shareFarBelowAir(h, again, padding) <= SECOND_SPLIT_MAX_BELOW_AIR)
    return { air: lower, bone: upper, scale: again };
  return { air, bone, scale };
}

/**
 * The scale of a split's peaks: Hounsfield units when they sit where air and soft tissue do, else only
 * when they are air and soft tissue (not grey and white matter), and not a soft-tissue "peak" at the
 * foot of its range (SOFT_PEAK_MIN_INSIDE), on which the whole scale would rest. No scale, and the
 * refusals in words, rather than a guessed one.
 */
function scaleOf(
  h: Histogram,
  air: number,
  bone: number,
  padding: boolean,
  huPossible: boolean,
): GreyScale | null {
  const found = findGreyScale(h, { air, bone, padding }, huPossible);
  if (!found) return null;
  if (found.hounsfield) return found;
  if (found.soft - air < SOFT_PEAK_MIN_INSIDE * (bone - air)) return null;
  return airApartFromTissue(h, found, air, padding) ? found : null;
}
