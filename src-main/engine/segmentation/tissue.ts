import type { Volume } from '../../scans/volume.js';
import { AppError } from '../../../src-shared/errors.js';
import {
  componentsAbove,
  enclosedInSlices,
  filterComponents,
  keepLarge,
  type FilterResult,
  type InsideRuns,
  type RunsPart,
} from './components.js';
import {
  checkDentitionBand,
  dentitionLevel,
  dentitionWords,
  huOf,
  mayBeHounsfield,
  type BandProfile,
  type GreyScale,
} from './dentition.js';
import { headFootAxis } from './head-foot.js';
import { placeDentition, type DentitionPlace } from './dentition-place.js';
import { checkAirway, checkSkin, refuseTiltedPlanes } from './region-checks.js';
import { checkAirwayPlace } from './airway-place.js';
import { floorAsAir, splitLevels, withoutMetal } from './grey-levels.js';
import { histogram, type Histogram } from './histogram.js';
import { faceShareAbove, invertedValues } from './grey-order.js';
import { roundFieldPadding, type RoundField } from './round-field.js';
import {
  clearPadding,
  fromFloor,
  paddingMask,
  paddingRange,
  withoutPadding,
  type PaddingRange,
} from './fov-padding.js';
import { absentClasses, checkTeethSlices, type Absent, type Tissue } from './class-evidence.js';

export type { Tissue } from './class-evidence.js';

export interface Thresholds {
  /** Air versus everything denser: Otsu over the whole scan (without out-of-view padding). */
  air: number;
  /** Soft tissue versus bone: Otsu over the voxels denser than air. */
  bone: number;
  /**
   * Lower edge of enamel and dentine (also fillings): a Hounsfield value on calibrated CT, scaled by
   * the air and soft-tissue peaks elsewhere (dentition.ts); null when the histogram shows no such peaks.
   */
  teeth: number | null;
  /**
   * The scale `teeth` was placed on: Hounsfield units, or air and soft-tissue peaks shown to be two
   * populations (class-evidence.ts); null when neither.
   */
  scale: GreyScale | null;
  /** The classes the histogram shows are not in the scan, each with the refusal in words. */
  absent: Absent;
  /** A CT's Rescale Type that is not HU: its values were not taken as Hounsfield units (for the note). */
  rescaleType?: string;
  /**
   * The values that are padding outside the field of view (declared, or a constant floor far below
   * air; fov-padding.ts), or null: neither air nor tissue, and their edge is a cut face.
   */
  padding: PaddingRange | null;
  /**
   * Set when the padding was found from where it lies (round-field.ts): only the voxels of its value
   * at the rim of this round field of view and beyond are padding.
   */
  roundField?: RoundField;
}

/**
 * Derives the thresholds from the scan's histogram. Many CBCT devices fill the corners outside their
 * cylindrical field of view with the lowest value; that spike is left out, or Otsu would split
 * padding from the patient instead of air from tissue. `modality` 'CT' lets calibrated Hounsfield
 * values be used as such (after checking that air and soft tissue sit where they must).
 */
export function deriveThresholds(
  data: Int16Array | Float32Array,
  modality?: string,
  /** The data's histogram when it was counted already (by the mesh workers, side by side). */
  counted?: Histogram,
  /** What the files say about the values (the volume: its Rescale Type). */
  scan: ScanFacts = {},
): Thresholds {
  // Declared padding is no grey value of the scan, nor are a few stray voxels below its floor.
  const huPossible = mayBeHounsfield(modality, scan.rescaleType);
  const floored = fromFloor(withoutPadding(counted ?? histogram(data), scan.padding));
  // In Hounsfield units only metal reaches the 12-bit range's top (where scanners clip it): no level.
  const h = huPossible ? withoutMetal(floored) : floored;
  const levels = splitLevels(h, huPossible);
  if (levels === null) {
    throw new AppError(
      'bad-input',
      'The scan has too little contrast to tell air, soft tissue and bone apart.',
      {
        action: 'Check that the file is a CT or CBCT scan of the head and that it is not blank.',
      },
    );
  }
  const { floorSpike, split } = levels;
  // A floor spike is left out of the splits as padding, but in Hounsfield units one at air's value is
  // air itself, clipped (an export setting the air around the head to -1024 lost every class), or
  // air of one value (a phantom made on a computer: without it, its soft tissue was read as air and
  // its bone as soft tissue, on a scale of their own, and the skin was the skull's surface).
  const asAir = !split.scale?.hounsfield && floorSpike && huPossible ? floorAsAir(h) : null;
  const padding = floorSpike && !asAir;
  const { air, bone, scale } = asAir ?? split;
  const level = scale ? dentitionLevel(scale) : null;
  // Integer data: keep the level halfway between values, so no voxel sits exactly on the surface.
  const teeth = level === null ? null : h.integer ? Math.floor(level) + 0.5 : level;
  const fov = paddingRange(h, scan.padding, padding, scale);
  const faces = scan.dims ? faceShareAbove(data, scan.dims, bone, fov) : null;
  const absent =
    invertedValues(h, { padding }, scale, faces) ??
    absentClasses(h, { air, bone, padding }, scale, huPossible);
  const teethAbove = teeth !== null && teeth > bone ? teeth : null;
  if (teethAbove === null && !absent.teeth) absent.teeth = NO_TEETH_LEVEL;
  const notHu = modality === 'CT' && !huPossible ? { rescaleType: scan.rescaleType as string } : {};
  // The padding of a round field of view at air's value, found from where it lies, after the outer
  // faces are read (the inverted-values check was set on faces with such padding on them).
  const round =
    fov === null && scan.dims && scan.spacing ? roundFieldPadding(data, scan.dims, scan.spacing) : null;
  const outside: Pick<Thresholds, 'padding' | 'roundField'> = round
    ? { padding: [round.value, round.value], roundField: round }
    : { padding: fov };
  return { air, bone, teeth: teethAbove, scale, absent, ...outside, ...notHu };
}

/** What the files say about a scan's values, beyond its modality. */
export interface ScanFacts {
  /** Rescale Type (upper case), when stated: a CT's values are Hounsfield units only if it is HU. */
  rescaleType?: string;
  /** The values the files declare as padding outside the field of view (Pixel Padding Value). */
  padding?: PaddingRange;
  /** The volume's shape: its outer faces show which class surrounds the others (grey-order.ts). */
  dims?: [number, number, number];
  /** Voxel size in mm (columns, rows, slices): a round field of view is round in mm. */
  spacing?: readonly number[];
}

export interface TissueRegion {
  tissue: Tissue;
  /** One byte per voxel, 1 inside the region. */
  mask: Uint8Array;
  /** Iso value and side the surface is placed at between inside and outside voxels. */
  iso: number;
  polarity: 'above' | 'below';
  components: FilterResult;
  /** The same voxels as `mask`, as runs along rows, where segmentation made them (above a level). */
  runs?: InsideRuns;
  /** Teeth only: where the class lies along the head-foot axis (it passed the band check). */
  band?: BandProfile;
  /** Teeth only: its pieces joined to bone, and its height in the bone. */
  place?: DentitionPlace;
}

/** Smallest piece of each tissue worth a surface, in mm³: below that it is noise or a speck of metal. */
const MIN_PIECE_MM3: Record<Tissue, number> = { bone: 50, teeth: 10, 'soft-tissue': 1000, airway: 100 };
/** Pieces smaller than this share of the largest are dropped: loose fragments, scanner parts, noise. */
const MIN_SHARE_OF_LARGEST: Record<Tissue, number> = { bone: 0.1, teeth: 0.01, 'soft-tissue': 1, airway: 1 };

/** The top of a CT's 12-bit Hounsfield range: metal is clipped here, enamel stays below (withoutMetal). */
const HU_TOP = 3071;

/**
 * The bone pieces to keep: the large ones, and any that holds enamel (a value above the teeth level,
 * below metal on a Hounsfield scale), whatever its share of the largest. A mandible is a piece of its
 * own (the jaw joint parts it from the skull) and can hold less than a tenth of the skull's bone: a
 * review's phantom lost its jaw and teeth from "skull", while all_teeth found them "joined to bone".
 */
function keepToothed(
  large: ReturnType<typeof keepLarge>,
  t: Thresholds,
  minVoxels: number,
): ReturnType<typeof keepLarge> {
  return (stats) => {
    const flags = large(stats);
    const { peaks, sizes } = stats;
    if (!peaks || t.teeth === null) return flags;
    const top = t.scale?.hounsfield ? HU_TOP : Infinity;
    for (let c = 0; c < flags.length; c++) {
      const peak = peaks[c] as number;
      if (!flags[c] && (sizes[c] as number) >= minVoxels && peak > t.teeth && peak < top) flags[c] = 1;
    }
    return flags;
  };
}

/**
 * The voxels of one tissue class: threshold, fill where needed, keep the large connected pieces.
 * `mask` receives them and must be all zeros (a fresh array).
 */
export function segmentTissue(
  volume: Pick<Volume, 'data' | 'dims' | 'spacing'> & Partial<Pick<Volume, 'rowDir' | 'colDir' | 'sliceDir'>>,
  tissue: Tissue,
  t: Thresholds,
  mask: Uint8Array = new Uint8Array(volume.data.length),
  /** For bone and teeth: the runs above levelOf(tissue) when found already (by the mesh workers). */
  found?: readonly RunsPart[],
): TissueRegion {
  const { data, dims, spacing } = volume;
  const voxelMm3 = spacing[0] * spacing[1] * spacing[2];
  const minVoxels = Math.ceil(MIN_PIECE_MM3[tissue] / voxelMm3);
  const large = keepLarge(MIN_SHARE_OF_LARGEST[tissue], minVoxels);
  const keep = tissue === 'bone' ? keepToothed(large, t, minVoxels) : large;
  const n = data.length;
  const level = tissue === 'airway' ? t.air : levelOf(tissue, t);
  // Padding is neither air nor tissue: taken out of every class it could fall in (the skin and the
  // airway, whose padding lies below air; bone and teeth only when it lies above their level).
  const pad =
    t.padding && (!isPlainAbove(tissue) || t.padding[1] > level)
      ? paddingMask(data, dims, t.padding, t.roundField ? { field: t.roundField, spacing } : undefined)
      : null;
  // Padding at or below the level is not above it: a mask of the voxels above it holds none to clear.
  const padAbove = t.padding && t.padding[1] > level ? pad : null;
  if (tissue === 'airway' || tissue === 'soft-tissue') refuseTiltedPlanes(volume, tissue);
  if (tissue === 'airway') {
    // Air that tissue encloses within an axial plane: the airway, nasal cavity and sinuses, not the
    // room. Padding is a hole open to the plane's edge (it lies outside the field of view), so air
    // against it is not enclosed, as air against the box's faces is not.
    const body = new Uint8Array(n);
    for (let i = 0; i < n; i++) body[i] = (data[i] as number) > t.air ? 1 : 0;
    clearPadding(body, padAbove);
    mask.fill(0);
    enclosedInSlices(body, dims, mask, headFootAxis(volume));
    clearPadding(mask, pad);
    const components = filterComponents(mask, dims, keep);
    checkAirway(components.keptVoxels, spacing);
    checkAirwayPlace(mask, body, pad, volume);
    return { tissue, mask, iso: t.air, polarity: 'below', components };
  }
  let components: FilterResult;
  let runs: InsideRuns | undefined;
  if (tissue === 'soft-tissue') {
    for (let i = 0; i < n; i++) mask[i] = (data[i] as number) > level ? 1 : 0;
    clearPadding(mask, padAbove);
    // The skin surface: air spaces inside the head would otherwise become inner surfaces.
    enclosedInSlices(mask, dims, undefined, headFootAxis(volume));
    clearPadding(mask, pad);
    components = filterComponents(mask, dims, keep);
    if (components.kept > 0) checkSkin(mask, volume, t.absent.bone ? null : t.bone, pad);
  } else if (pad) {
    // Padding above the level (a high padding value): the voxels above it, without the padding.
    for (let i = 0; i < n; i++) mask[i] = (data[i] as number) > level && !pad[i] ? 1 : 0;
    components = filterComponents(mask, dims, keep);
  } else {
    ({ runs, ...components } = componentsAbove(data, level, dims, keep, mask, found));
  }
  if (tissue === 'teeth' && components.kept > 0) {
    const scale = t.scale as GreyScale;
    // Spread over the head first: a class that is bone is refused as such, not piece by piece.
    checkDentitionBand(mask, volume, level, scale);
    const place = placeDentition(
      mask,
      volume,
      t.bone,
      huOf(scale),
      dentitionWords(level, scale),
      scale.hounsfield,
    );
    if (place.loose + place.compact > 0) {
      // The mask lost pieces its runs still hold: extraction reads the mask.
      runs = undefined;
      components = {
        ...components,
        kept: components.kept - place.loose - place.compact,
        keptVoxels: components.keptVoxels - place.looseVoxels - place.compactVoxels,
      };
    }
    const band = checkDentitionBand(mask, volume, level, scale);
    checkTeethSlices(mask, volume);
    return {
      tissue,
      mask,
      iso: level,
      polarity: 'above',
      components,
      band,
      place,
      ...(runs ? { runs } : {}),
    };
  }
  return { tissue, mask, iso: level, polarity: 'above', components, ...(runs ? { runs } : {}) };
}

/** The grey value a tissue is told apart at: bone and teeth above it, skin above and airway below air's. */
export function levelOf(tissue: Tissue, t: Thresholds): number {
  return tissue === 'bone' ? t.bone : tissue === 'teeth' ? teethLevel(t) : t.air;
}

/** Whether segmentTissue takes the voxels above levelOf(tissue) as they are (runs found ahead help). */
export function isPlainAbove(tissue: Tissue): boolean {
  return tissue === 'bone' || tissue === 'teeth';
}

const NO_TEETH_LEVEL = {
  message:
    "The scan's grey values give no level that tells teeth from bone (its histogram shows no clear air and soft-tissue peaks to scale one), so no teeth mesh was made.",
  action: 'Check that the scan shows the head with air around it, or use a remote segmentation service.',
};

function teethLevel(t: Thresholds): number {
  if (t.teeth !== null && t.scale) return t.teeth;
  throw new AppError('bad-input', NO_TEETH_LEVEL.message, { action: NO_TEETH_LEVEL.action });
}
