import { basename } from 'node:path';
import type { ScanProblem } from '../../src-shared/scans.js';
import { isLocalizer } from './classify.js';
import type { DicomHeader } from './header-fields.js';
import { MIN_BITS_STORED, type FitnessInput } from './segmentation-fitness.js';
import type { SliceLayout } from './slice-layout.js';
import { volumeTooLarge } from './volume-limits.js';

// What the fitness check (segmentation-fitness.ts) is given for a series: read from its headers, its
// slice layout and the problems found with them.

/** The largest number a volume's 32-bit float voxel can hold. */
const FLOAT32_MAX = 3.4028234663852886e38;

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
  // Several stacks merged lie in no one line, with gaps between them: their refusal says why.
  const oneStack = !problems.some((p) => p.code === 'several-stacks');
  const input: FitnessInput = {
    modality: first?.modality ?? '',
    localizer: anyLocalizer(headers),
    columns: layout.columns,
    rows: layout.rows,
    slices: layout.frames.length,
    mixedOrientations: problems.some((p) => p.code === 'mixed-orientations'),
    unbridgeableGaps: oneStack ? layout.stack.unbridgeable : [],
    offLineMm: oneStack ? layout.stack.offLine : 0,
    slicesWithoutPosition: layout.framesWithoutPosition,
    framesWithoutOwnPosition: layout.frames.some((f) => !f.info.position && f.header.numberOfFrames > 1),
    slicesWithoutOrientation: layout.framesWithoutOrientation,
    sliceSpacingMm: layout.sliceSpacing,
    otherReasons: problems
      .filter((p) => p.severity === 'error' && p.code !== 'mixed-orientations')
      .map((p) => p.message),
  };
  if (layout.pixelSpacingKnown) input.pixelSize = [colSpacing, rowSpacing];
  if (layout.sliceSpacingKnown) input.stackLengthMm = layout.stack.offsets.at(-1) ?? 0;
  const thickness = first?.sliceThickness;
  if (thickness !== undefined && thickness > 0) input.sliceThicknessMm = thickness;
  let farthest = 0;
  for (const f of layout.frames)
    for (let a = 0; a < 3; a++) farthest = Math.max(farthest, Math.abs(f.position[a]!));
  if (layout.positionsKnown) input.farthestMm = farthest;
  const bits = firstOddBits(headers);
  if (bits) input.oddBits = bits;
  const unreadable = headers.filter((h) => h.unreadableNumbers);
  if (unreadable.length > 0) {
    const first = unreadable[0]!;
    input.unreadableNumber = {
      ...first.unreadableNumbers![0]!,
      file: basename(first.path),
      files: unreadable.length,
    };
  }
  const rescale = firstOddRescale(headers);
  if (rescale) input.oddRescale = rescale;
  const withTable = layout.frames.reduce((n, f) => n + (f.header.modalityLut ? 1 : 0), 0);
  if (withTable > 0) input.slicesWithValueTable = withTable;
  const tooLarge = volumeTooLarge(layout);
  if (tooLarge) input.volumeTooLarge = tooLarge;
  return input;
}

/**
 * The first image whose Bits Stored is not 1 to Bits Allocated: its values would be masked to bits
 * it does not have. The files of a series mostly repeat one pair: each pair is checked once.
 */
function firstOddBits(headers: DicomHeader[]): FitnessInput['oddBits'] {
  let last: DicomHeader | undefined;
  for (let i = 0; i < headers.length; i++) {
    const h = headers[i]!;
    if (
      last &&
      h.bitsStored === last.bitsStored &&
      h.bitsAllocated === last.bitsAllocated &&
      h.highBit === last.highBit
    )
      continue;
    if (!(h.bitsStored >= MIN_BITS_STORED && h.bitsStored <= h.bitsAllocated))
      return { allocated: h.bitsAllocated, stored: h.bitsStored };
    // Values kept in the high bits (High Bit 15 of 12 stored) were read from the low ones, as pydicom
    // reads them: a review's phantom then showed no air and was refused for that.
    if (h.highBit !== undefined && h.highBit !== h.bitsStored - 1)
      return { allocated: h.bitsAllocated, stored: h.bitsStored, highBit: h.highBit };
    last = h;
  }
  return undefined;
}

/** The first frame whose Rescale Slope and Intercept give no usable values, and why. */
function firstOddRescale(headers: DicomHeader[]): FitnessInput['oddRescale'] {
  let slope = 1;
  let intercept = 0;
  let bits = -1;
  for (let i = 0; i < headers.length; i++) {
    const h = headers[i]!;
    for (let f = 0; f < h.frames.length; f++) {
      const info = h.frames[f]!;
      // The frames of a series mostly repeat one slope and intercept: each is checked once.
      if (info.slope === slope && info.intercept === intercept && h.bitsStored === bits) continue;
      const why = rescaleFault(info.slope, info.intercept, h.bitsStored);
      if (why) return { slope: info.slope, intercept: info.intercept, why };
      slope = info.slope;
      intercept = info.intercept;
      bits = h.bitsStored;
    }
  }
  return undefined;
}

/** Why a Rescale Slope and Intercept cannot map stored values to densities; undefined when they can. */
function rescaleFault(slope: number, intercept: number, bitsStored: number): string | undefined {
  if (!Number.isFinite(slope) || !Number.isFinite(intercept)) return 'they are not numbers';
  if (slope === 0) return 'a slope of 0 gives every pixel the same value';
  // The volume holds the rescaled values as 32-bit floats: larger ones become infinite.
  const largest = Math.abs(slope) * 2 ** Math.min(Math.max(bitsStored, 1), 32) + Math.abs(intercept);
  if (largest > FLOAT32_MAX) return 'they turn the stored values into numbers too large to hold';
  return undefined;
}

/** Whether any image's ImageType says LOCALIZER; the files of a series mostly repeat one ImageType. */
function anyLocalizer(headers: DicomHeader[]): boolean {
  let last: string | undefined;
  for (let i = 0; i < headers.length; i++) {
    const h = headers[i]!;
    if (h.imageType === last) continue;
    if (isLocalizer(h.imageType)) return true;
    last = h.imageType;
  }
  return false;
}
