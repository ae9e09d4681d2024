/**
 * Whether a series can honestly be made into a jaw model: one check, used by the series summary
 * (so the UI and the CLI show it) and by the volume read for segmentation (so the local engine
 * refuses before extracting). Pure: it looks only at what the headers and the slice layout say.
 */
import type { UnreadableNumber } from './header-types.js';
import { slicesWord } from './slice-layout.js';
import { gapWords, maxBridgeableGap, maxOffLineMm, type StackGap } from './stack-grid.js';

interface SegmentationFitness {
  fit: boolean;
  /** Plain sentences for a clinician, one per reason; empty when fit. */
  reasons: string[];
}

/** What the check looks at; built from a series by fitnessInputOf, or by hand in tests. */
export interface FitnessInput {
  /** DICOM Modality of the series ('CT', 'MR', ...; '' when absent). */
  modality: string;
  /** True when any image's ImageType says LOCALIZER (a scout, the overview taken to plan a scan). */
  localizer: boolean;
  columns: number;
  rows: number;
  slices: number;
  /** [column, row] size of one pixel (mm); absent when the files state none. */
  pixelSize?: [number, number];
  /** Distance from the first slice to the last along the stack (mm); absent when not known. */
  stackLengthMm?: number;
  /** Slices whose files do not say where they lie in the patient (Image Position); absent: none. */
  slicesWithoutPosition?: number;
  /** True when those slices are frames of a multi-frame file that gives them no position of their own. */
  framesWithoutOwnPosition?: boolean;
  /** Slices whose files do not say how they are oriented in the patient (Image Orientation). */
  slicesWithoutOrientation?: number;
  /** Median distance between neighbouring slices (mm), for the wording of gaps. */
  sliceSpacingMm?: number;
  /** Slice Thickness of the first image (mm), when it states one above 0. */
  sliceThicknessMm?: number;
  /** The largest distance of a slice's position from the patient coordinates' origin along any axis (mm). */
  farthestMm?: number;
  mixedOrientations: boolean;
  /** Gaps between slices too wide to bridge by interpolation. */
  unbridgeableGaps: StackGap[];
  /** Largest distance of a slice from the line through the stack (mm). */
  offLineMm?: number;
  /** The first image whose Bits Stored does not fit its Bits Allocated, or is too few for densities (none: all fit). */
  oddBits?: { allocated: number; stored: number; highBit?: number };
  /** Why the volume would take more memory than scan2mesh reads (volume-limits.ts); none: it fits. */
  volumeTooLarge?: string;
  /** The first image whose Rescale Slope and Intercept give no usable values (none: all do). */
  oddRescale?: { slope: number; intercept: number; why: string };
  /** Images that map their stored values through a Modality LUT Sequence (a table) rather than a rescale. */
  slicesWithValueTable?: number;
  /** The first attribute placing or sizing the slices that is written as no number, and in how many files. */
  unreadableNumber?: UnreadableNumber & { file: string; files: number };
  /** Other reasons the images do not make one volume (already in words), e.g. mixed sizes. */
  otherReasons?: string[];
}

/**
 * Limits from what real scans of a jaw look like.
 * - 64 pixels across: the smallest dental CBCT field of view (about 40 mm) at the coarsest voxel
 *   used (0.4 to 0.5 mm) is 80 to 100 pixels; medical CT is 512. Fewer is a thumbnail, a scout or a
 *   dose or perfusion grid (16 x 16), not an image of teeth.
 * - 20 slices: that 40 mm CBCT has 100 slices at 0.4 mm; even a thick-slice (2 mm) CT through a
 *   jaw has 20 or more. A 2-slice perfusion slab holds no jaw.
 * - 30 mm along every axis: one tooth with its root is 20 to 25 mm long and the smallest CBCT
 *   volumes are 40 x 40 mm. The main phantom CT covers 231 x 231 x 139 mm, the human cranium CT
 *   245 x 245 x 160 mm.
 */
export const MIN_PIXELS = 64;
export const MIN_SLICES = 20;
export const MIN_EXTENT_MM = 30;

/**
 * Limits beyond which the numbers in the files do not describe a scan of a head, whatever the
 * images show (a model would be scaled or placed by them).
 * - 1000 mm along any axis: a head is about 250 mm across, so four times that is no head scan.
 * - 20 mm between slices: the coarsest CT through a jaw has 5 mm slices; 20 mm apart, a whole
 *   mandible (about 40 mm high) lies on two or three of them, which is no 3D scan of it.
 */
export const MAX_EXTENT_MM = 1000;
export const MAX_SLICE_SPACING_MM = 20;
/**
 * Along the stack a scan for a jaw model is a head, or a head and neck: about 450 mm. Positions
 * stretched five-fold with no Slice Thickness to contradict them made a 778 mm "skull" (a review); a
 * head-to-chest scan that holds a skull is refused too, with what to do (export the head's slices).
 */
export const MAX_STACK_MM = 600;
/**
 * The slices' positions lie within a few metres of the scanner's origin (its isocentre or table
 * reference); 20 km away, as a review wrote them, the model was refused only after it was made, as
 * a download with coordinates out of range.
 */
const MAX_POSITION_MM = 10_000;
/**
 * Slices further apart than their thickness leave the patient between them unseen. Up to 2 mm (or
 * one thickness) of that is an overlap-free protocol; more is no 3D scan of a jaw, or positions that
 * were scaled (a review's 7.5 mm apart with Slice Thickness 1.5 was made into a model).
 */
const MAX_UNSEEN_MM = 2;

/** Fewest bits of a pixel's value that can hold densities: 8-bit CBCT exports exist; CT keeps 12 to 16. */
export const MIN_BITS_STORED = 8;

const MODALITY_WORDS: Record<string, string> = {
  MR: 'an MR (magnetic resonance) scan',
  PT: 'a PET scan',
  NM: 'a nuclear medicine image',
  US: 'an ultrasound image',
  CR: 'a plain X-ray (CR)',
  DX: 'a plain X-ray (DX)',
  PX: 'a panoramic dental X-ray',
  IO: 'an intra-oral X-ray',
  MG: 'a mammogram',
  XA: 'an angiography image',
  RTDOSE: 'a radiotherapy dose grid',
  OT: 'an image of type "other" (often a screenshot or a converted picture)',
  SC: 'a secondary capture (a screenshot or converted picture)',
};

/** Millimetres to one decimal, without a trailing ".0". */
/** "an MR (magnetic resonance) scan", "a CT image"...: what a modality is, in words. */
export function modalityWords(modality: string): string {
  return (
    MODALITY_WORDS[modality] ??
    (modality ? `a ${modality} image` : 'an image that does not say what kind of scan it is')
  );
}

const mm = (v: number): string => String(Math.round(v * 10) / 10);
/** A distance of metres or more, in metres or kilometres. */
const distanceWords = (millimetres: number): string =>
  millimetres >= 1e6 ? `${mm(millimetres / 1e6)} km` : `${mm(millimetres / 1000)} m`;
const mm2 = (v: number): string => String(Math.round(v * 100) / 100);

/** What each placing attribute holds, and what is lost when it cannot be read. */
const UNREADABLE_WORDS: Record<string, { holds: string; lost: string }> = {
  x00200032: {
    holds: 'three numbers',
    lost: 'where the slices lie cannot be read, and a model placed by a guess could be shifted or distorted',
  },
  x00200037: { holds: 'six numbers', lost: 'how the slices face in the patient cannot be read' },
  x00280030: {
    holds: 'two numbers',
    lost: 'the size of a pixel cannot be read, so a model would have no true size',
  },
  x3004000c: { holds: 'one number per frame', lost: 'where the frames lie cannot be read' },
  x00180050: {
    holds: 'a number',
    lost: 'how much of the patient a slice shows cannot be read, nor whether the patient between slices was imaged',
  },
};

function unreadableReason(u: NonNullable<FitnessInput['unreadableNumber']>): string {
  const words = UNREADABLE_WORDS[u.tag] ?? { holds: 'numbers', lost: 'the scan cannot be placed' };
  const where = u.files > 1 ? `${u.file} and ${u.files - 1} other file${u.files > 2 ? 's' : ''}` : u.file;
  const comma = u.text.includes(',') ? ', and a comma is no decimal point there' : '';
  return `${u.attribute} holds "${u.text}" in ${where}, which is not ${words.holds} as DICOM writes them (digits with a decimal point, a backslash between values${comma}): ${words.lost}. Export the scan again from the scanner or PACS; a program that converted or edited the files may have written the numbers its own way.`;
}

export function segmentationFitness(s: FitnessInput): SegmentationFitness {
  const reasons: string[] = [];
  // An attribute written as no number is said so once; not as if the files lacked it.
  const unreadable = s.unreadableNumber?.tag;
  if (s.unreadableNumber) reasons.push(unreadableReason(s.unreadableNumber));
  if (s.modality !== 'CT') {
    const words = modalityWords(s.modality);

    reasons.push(
      `This is ${words}, not a CT or cone-beam CT scan: bone and teeth are found by their X-ray density, which only CT records.`,
    );
  }
  if (s.localizer) {
    reasons.push(
      'This series is a localizer (scout): the overview image taken to plan the scan, not the 3D scan itself.',
    );
  }
  if (!s.pixelSize && unreadable !== 'x00280030') {
    reasons.push(
      'The images do not state their pixel size in the patient (Pixel Spacing), so the scan has no physical scale: a model made from it would have no true size.',
    );
  }
  // A model is placed from each slice's recorded position and orientation; without them its place,
  // and even which side is left or which end is up, would be a guess.
  const noPosition = s.slicesWithoutPosition ?? 0;
  if (unreadable === 'x00200032' || unreadable === 'x3004000c') {
    // Said above.
  } else if (noPosition > 0 && s.framesWithoutOwnPosition) {
    // One place for the file, or none, is no place for each frame: saying they lie on top of each
    // other, or that the scan is 0 mm deep, named the wrong fault.
    const which =
      noPosition >= s.slices
        ? 'The frames of this multi-frame file do'
        : `${noPosition} of the ${s.slices} frames of this multi-frame file ${noPosition === 1 ? 'does' : 'do'}`;
    reasons.push(
      `${which} not give ${noPosition === 1 ? 'its' : 'their'} own position in the patient (a Plane Position for each frame), so the stack cannot be placed from the true slice positions: a model could be shifted or mirrored. Export the scan again so that every frame records its position (or as one file per slice).`,
    );
  } else if (noPosition > 0) {
    reasons.push(
      `${slicesWord(noPosition, s.slices)} not record where ${noPosition === 1 ? 'it lies' : 'they lie'} in the patient (Image Position), so a model could not be placed from the true slice positions: it could be shifted or mirrored.`,
    );
  } else if (s.stackLengthMm === undefined) {
    reasons.push(
      'The slices record neither where they are nor how far apart they are, so the scan has no scale along the stack.',
    );
  }
  const noOrientation = s.slicesWithoutOrientation ?? 0;
  if (noOrientation > 0 && unreadable !== 'x00200037') {
    reasons.push(
      `${slicesWord(noOrientation, s.slices)} not record how ${noOrientation === 1 ? 'it is' : 'they are'} oriented in the patient (Image Orientation), so a model's left and right, front and back could not be known.`,
    );
  }
  if (s.columns < MIN_PIXELS || s.rows < MIN_PIXELS) {
    reasons.push(
      `The images are only ${s.columns} x ${s.rows} pixels; a scan that shows a jaw has at least ${MIN_PIXELS} x ${MIN_PIXELS}.`,
    );
  }
  if (s.slices < MIN_SLICES) {
    reasons.push(
      `The series has only ${s.slices} slice${s.slices === 1 ? '' : 's'}; a scan that holds a jaw has at least ${MIN_SLICES}.`,
    );
  }
  const pixelSizeValid = s.pixelSize !== undefined && s.pixelSize[0] > 0 && s.pixelSize[1] > 0;
  if (s.pixelSize && !pixelSizeValid) {
    reasons.push(
      `The images state a pixel size of ${s.pixelSize.join(' x ')} mm, which cannot be right: a pixel's size is more than 0 mm.`,
    );
  }
  if (s.pixelSize && pixelSizeValid && s.stackLengthMm !== undefined) reasons.push(...extentReasons(s));
  if (s.sliceSpacingMm !== undefined && s.sliceSpacingMm > MAX_SLICE_SPACING_MM) {
    reasons.push(
      `The slices lie ${mm(s.sliceSpacingMm)} mm apart; the slices of a 3D scan of a jaw lie at most ${MAX_SLICE_SPACING_MM} mm apart.`,
    );
  }
  const thickness = s.sliceThicknessMm;
  if (
    s.sliceSpacingMm !== undefined &&
    thickness !== undefined &&
    s.sliceSpacingMm <= MAX_SLICE_SPACING_MM &&
    s.sliceSpacingMm - thickness > Math.max(MAX_UNSEEN_MM, thickness)
  ) {
    reasons.push(
      `The slices lie ${mm(s.sliceSpacingMm)} mm apart, but each shows only ${mm(thickness)} mm of the patient (Slice Thickness): ${mm(s.sliceSpacingMm - thickness)} mm between slices were never imaged, so a model would be a guess there: the scan was made with gaps between its slices, too sparse for a 3D model, or slices were left out of the export (export the whole series), or the slice positions are not what the scanner wrote.`,
    );
  }
  if (s.farthestMm !== undefined && s.farthestMm > MAX_POSITION_MM) {
    reasons.push(
      `The slices say they lie ${distanceWords(s.farthestMm)} from the scanner's origin (Image Position), farther than any patient lies in a scanner (at most ${MAX_POSITION_MM / 1000} m): their positions cannot be right.`,
    );
  }
  if (s.oddBits && s.oddBits.stored >= 1 && s.oddBits.stored < MIN_BITS_STORED) {
    reasons.push(
      `The images keep only ${s.oddBits.stored} bit${s.oddBits.stored === 1 ? '' : 's'} of each pixel's value (Bits Stored ${s.oddBits.stored}): at most ${2 ** s.oddBits.stored} grey values, too few to tell bone and teeth from soft tissue by their density (CT keeps 12 or more, a CBCT export at least ${MIN_BITS_STORED}).`,
    );
  } else if (s.oddBits?.highBit !== undefined) {
    const { stored, highBit } = s.oddBits;
    reasons.push(
      `The images say their ${stored}-bit values end in bit ${highBit} (High Bit ${highBit}), where CT keeps them in bits 0 to ${stored - 1} (High Bit ${stored - 1}): the pixel values could be misread.`,
    );
  } else if (s.oddBits) {
    reasons.push(
      `The images say ${s.oddBits.stored} of their ${s.oddBits.allocated} bits per pixel hold its value (Bits Stored ${s.oddBits.stored}, Bits Allocated ${s.oddBits.allocated}), which cannot be: the pixel values cannot be read as the scanner stored them.`,
    );
  }
  if (s.oddRescale) {
    const { slope, intercept, why } = s.oddRescale;
    reasons.push(
      `The images' value scale cannot be right (Rescale Slope ${slope}, Rescale Intercept ${intercept}): ${why}, so bone and teeth cannot be told apart by their density.`,
    );
  }
  if (s.slicesWithValueTable) {
    reasons.push(
      `${slicesWord(s.slicesWithValueTable, s.slices)} not state ${s.slicesWithValueTable === 1 ? 'its' : 'their'} density scale by Rescale Slope and Intercept, as CT images do: ${s.slicesWithValueTable === 1 ? 'it maps its' : 'they map their'} stored values through a lookup table (Modality LUT Sequence), which scan2mesh does not apply, so bone and teeth could not be told apart by their density. Export the scan again as standard CT images.`,
    );
  }
  if (s.mixedOrientations) {
    reasons.push('The images are not all oriented the same way, so they do not form one volume.');
  }
  if (s.unbridgeableGaps.length > 0) {
    const limit =
      s.sliceSpacingMm === undefined ? '' : ` (wider than ${mm(maxBridgeableGap(s.sliceSpacingMm))} mm)`;
    const where = s.unbridgeableGaps.map(gapWords).join('; ');
    reasons.push(
      `Slices are missing ${where}: too wide a gap to fill in honestly${limit}. Export the complete series.`,
    );
  }
  if (s.offLineMm !== undefined && s.offLineMm > maxOffLineMm(s.pixelSize)) {
    reasons.push(
      `The slices do not lie on one straight line (one is ${mm2(s.offLineMm)} mm off it; a slice may be at most ${mm2(maxOffLineMm(s.pixelSize))} mm off, half a pixel), so they do not form one regular scan.`,
    );
  }
  if (s.volumeTooLarge) reasons.push(s.volumeTooLarge);
  for (const r of s.otherReasons ?? []) if (!reasons.includes(r)) reasons.push(r);
  return { fit: reasons.length === 0, reasons };
}

/** What is wrong with the size a scan says it covers: too small to hold a jaw, or larger than a head. */
function extentReasons(s: FitnessInput): string[] {
  // Measured as the images are, edge to edge: a pixel shows its whole width, and a slice the patient
  // for half the spacing on each side of its centre, so the stack covers one spacing more than the
  // distance between its first and last centre (20 slices 1.5 mm apart cover 30 mm, not 28.5).
  const depth = s.stackLengthMm! + (s.sliceSpacingMm ?? 0);
  const extent = [s.columns * s.pixelSize![0], s.rows * s.pixelSize![1], depth];
  if (extent.some((e) => e < MIN_EXTENT_MM)) {
    return [
      `The scan covers only ${extent.map(mm).join(' x ')} mm; a jaw needs at least ${MIN_EXTENT_MM} mm in every direction.`,
    ];
  }
  if (extent.some((e) => e > MAX_EXTENT_MM)) {
    return [
      `The scan would cover ${extent.map(mm).join(' x ')} mm, more than any head (at most ${MAX_EXTENT_MM} mm in every direction): its pixel size or slice positions cannot be right.`,
    ];
  }
  if (s.stackLengthMm! > MAX_STACK_MM) {
    return [
      `The slices span ${mm(s.stackLengthMm!)} mm from the first to the last, more than a head and neck (at most ${MAX_STACK_MM} mm): the slice positions may not be right. If the scan holds more of the body than the head, export the slices of the head alone (a series of them) and add that.`,
    ];
  }
  return [];
}
