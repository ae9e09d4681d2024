/**
 * Whether a series can honestly be made into a jaw model: one check, used by the series summary
 * (so the UI and the CLI show it) and by the volume read for segmentation (so the local engine
 * refuses before extracting). Pure: it looks only at what the headers and the slice layout say.
 */
import type { ScanProblem } from '../../src-shared/scans.js';
import type { DicomHeader } from './header-fields.js';
import { slicesWord, type SliceLayout } from './slice-layout.js';
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
  /** Slices whose files do not say how they are oriented in the patient (Image Orientation). */
  slicesWithoutOrientation?: number;
  /** Median distance between neighbouring slices (mm), for the wording of gaps. */
  sliceSpacingMm?: number;
  mixedOrientations: boolean;
  /** Gaps between slices too wide to bridge by interpolation. */
  unbridgeableGaps: StackGap[];
  /** Largest distance of a slice from the line through the stack (mm). */
  offLineMm?: number;
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
const mm2 = (v: number): string => String(Math.round(v * 100) / 100);

export function segmentationFitness(s: FitnessInput): SegmentationFitness {
  const reasons: string[] = [];
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
  if (!s.pixelSize) {
    reasons.push(
      'The images do not state their pixel size, so the scan has no physical scale: a model made from it would have no true size.',
    );
  }
  // A model is placed from each slice's recorded position and orientation; without them its place,
  // and even which side is left or which end is up, would be a guess.
  const noPosition = s.slicesWithoutPosition ?? 0;
  if (noPosition > 0) {
    reasons.push(
      `${slicesWord(noPosition, s.slices)} not record where ${noPosition === 1 ? 'it lies' : 'they lie'} in the patient (Image Position), so a model could not be placed from the true slice positions: it could be shifted or mirrored.`,
    );
  } else if (s.stackLengthMm === undefined) {
    reasons.push(
      'The slices record neither where they are nor how far apart they are, so the scan has no scale along the stack.',
    );
  }
  const noOrientation = s.slicesWithoutOrientation ?? 0;
  if (noOrientation > 0) {
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
  if (s.pixelSize && s.stackLengthMm !== undefined) {
    const extent = [s.columns * s.pixelSize[0], s.rows * s.pixelSize[1], s.stackLengthMm];
    if (extent.some((e) => e < MIN_EXTENT_MM)) {
      reasons.push(
        `The scan covers only ${extent.map(mm).join(' x ')} mm; a jaw needs at least ${MIN_EXTENT_MM} mm in every direction.`,
      );
    }
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
  for (const r of s.otherReasons ?? []) if (!reasons.includes(r)) reasons.push(r);
  return { fit: reasons.length === 0, reasons };
}

/**
 * The check's input for a series: its headers, their layout, and the problems found with them
 * (error-level ones other than orientation, which is worded here, become reasons as they are).
 */
export function fitnessInputOf(
  headers: DicomHeader[],
  layout: SliceLayout,
  problems: ScanProblem[],
): FitnessInput {
  const first = headers[0];
  const [rowSpacing, colSpacing] = layout.pixelSpacing;
  const input: FitnessInput = {
    modality: first?.modality ?? '',
    localizer: anyLocalizer(headers),
    columns: layout.columns,
    rows: layout.rows,
    slices: layout.frames.length,
    mixedOrientations: problems.some((p) => p.code === 'mixed-orientations'),
    unbridgeableGaps: layout.stack.unbridgeable,
    offLineMm: layout.stack.offLine,
    slicesWithoutPosition: layout.framesWithoutPosition,
    slicesWithoutOrientation: layout.framesWithoutOrientation,
    sliceSpacingMm: layout.sliceSpacing,
    otherReasons: problems
      .filter((p) => p.severity === 'error' && p.code !== 'mixed-orientations')
      .map((p) => p.message),
  };
  if (layout.pixelSpacingKnown) input.pixelSize = [colSpacing, rowSpacing];
  if (layout.sliceSpacingKnown) input.stackLengthMm = layout.stack.offsets.at(-1) ?? 0;
  return input;
}

/** Whether any image's ImageType says LOCALIZER; the files of a series mostly repeat one ImageType. */
function anyLocalizer(headers: DicomHeader[]): boolean {
  let last: string | undefined;
  for (let i = 0; i < headers.length; i++) {
    const h = headers[i]!;
    if (h.imageType === last) continue;
    if (/(^|\\)\s*LOCALIZER\s*(\\|$)/i.test(h.imageType)) return true;
    last = h.imageType;
  }
  return false;
}
