import type { ScanProblem } from '../../src-shared/scans.js';
import { directions, dot, isValidOrientation } from './geometry.js';
import type { DicomHeader, FrameInfo, Vec3 } from './header-fields.js';
import {
  firstOtherPixelFormat,
  firstOtherPixelSpacing,
  firstTilted,
  severalStacksWords,
  sizesOf,
  spacingWords,
  stacksOf,
} from './slice-consistency.js';
import { reportSpacing } from './slice-spacing.js';
import { MAX_STACK_LEAN_DEG, stackGrid, stackLeanDegrees, type StackGrid } from './stack-grid.js';
import { MAX_VOLUME_BYTES } from './volume-limits.js';
import { HEADER_TAGS, TAG } from './header-tags.js';

/** One 2D image of a series: a single-frame file, or one frame of a multi-frame file. */
export interface FrameRef {
  header: DicomHeader;
  frameIndex: number;
  info: FrameInfo;
  position: Vec3;
  /** Position along the slice normal (mm). */
  along: number;
}

/** A series' slices in order along the normal, with the geometry they share. */
export interface SliceLayout {
  frames: FrameRef[];
  rows: number;
  columns: number;
  orientation: [number, number, number, number, number, number];
  rowDir: Vec3;
  colDir: Vec3;
  normal: Vec3;
  /** DICOM order: [row spacing, column spacing] mm; [1, 1] stand-ins when the files state none. */
  pixelSpacing: [number, number];
  /** False when the files state no pixel size: the scan then has no physical scale. */
  pixelSpacingKnown: boolean;
  /** How many frames state no orientation (they are shown as the first one, or as axial). */
  framesWithoutOrientation: number;
  /** How many frames state no position: the order and places of all then come from their numbers. */
  framesWithoutPosition: number;
  /** Median distance between neighbouring slices along the stack (mm); from the header for one slice. */
  sliceSpacing: number;
  /** Where the slices lie along the stack (the line through their positions: handles gantry tilt), and the regular grid the volume is built on. */
  stack: StackGrid;
  positionsKnown: boolean;
  /** False when neither positions nor a header spacing say how far apart the slices are. */
  sliceSpacingKnown: boolean;
}

const DEFAULT_ORIENTATION: SliceLayout['orientation'] = [1, 0, 0, 0, 1, 0];

const fmt = (v: number, digits = 1): string => v.toFixed(digits);
/** Slices nearer than this share of the stack's spacing lie at one place (two scans, repeated images). */
const NEAR_SHARE = 0.05;

/**
 * Orders the frames of one series along their slice normal and checks that they form a volume.
 * Returns the layout and what is wrong with it, in words for a clinician; error-level problems mean
 * the frames do not make one volume (different sizes or orientations, slices on top of each other).
 */
export function layoutSlices(headers: DicomHeader[]): { layout: SliceLayout; problems: ScanProblem[] } {
  const problems: ScanProblem[] = [];
  const raw: { header: DicomHeader; frameIndex: number; info: FrameInfo }[] = [];
  // Indexed loops over frames here and below: for...of makes an iterator result per element until the
  // JIT has compiled the loop, and a drop's layout runs once, over up to thousands of frames.
  for (let i = 0; i < headers.length; i++) {
    const h = headers[i]!;
    for (let f = 0; f < h.numberOfFrames; f++)
      raw.push({ header: h, frameIndex: f, info: h.frames[f] ?? h.frames[0]! });
  }
  const first = raw[0];
  if (!first) throw new Error('layoutSlices needs at least one file');
  const stacks = stacksOf(raw);
  if (stacks.second) {
    problems.push({
      severity: 'error',
      code: 'several-stacks',
      message: severalStacksWords(stacks.ids),
      file: stacks.second.header.path,
    });
  }
  // What the positions of several stacks merged say (slices at one place, gaps, steps) is no fact
  // about the scan: only the stacks are reported then.
  const oneStack = !stacks.second;

  // Most common size and orientation win; the rest are reported.
  const sizeCounts = sizesOf(raw);
  const [commonSize] = [...sizeCounts.entries()].sort((a, b) => b[1] - a[1])[0]!;
  if (sizeCounts.size > 1) {
    const odd = raw.find((r) => `${r.header.columns}x${r.header.rows}` !== commonSize)!;
    problems.push({
      severity: 'error',
      code: 'mixed-sizes',
      message: `The images in this series do not all have the same size (${[...sizeCounts.keys()].join(', ')} pixels), so they do not form one volume.`,
      file: odd.header.path,
    });
  }
  const orientation = (first.info.orientation ?? DEFAULT_ORIENTATION) as SliceLayout['orientation'];
  let framesWithoutOrientation = 0;
  for (let i = 0; i < raw.length; i++) if (!raw[i]!.info.orientation) framesWithoutOrientation++;
  if (framesWithoutOrientation > 0) {
    // A fact for the preview; whether a model can be made is segmentation-fitness.ts's to say.
    problems.push({
      severity: 'warning',
      code: 'no-orientation',
      message: `${slicesWord(framesWithoutOrientation, raw.length)} not say how ${framesWithoutOrientation === 1 ? 'it is' : 'they are'} oriented in the patient; the preview shows ${first.info.orientation ? 'such slices like the others' : 'the scan as axial'}.`,
    });
  }
  if (first.info.orientation && !isValidOrientation(orientation)) {
    // Normalising such numbers would place the slices along a direction the file never gave.
    problems.push({
      severity: 'error',
      code: 'bad-orientation',
      message: `The image orientation is not a valid direction: the files give [${orientation.map((c) => +c.toPrecision(6)).join(', ')}] (Image Orientation), but its row and column directions must each have length 1 and be at right angles. Where the patient's left, front and head lie in the scan cannot be known.`,
      file: first.header.path,
    });
  }
  const spacingOdd = firstOtherPixelSpacing(raw);
  if (spacingOdd) {
    problems.push({
      severity: 'error',
      code: 'mixed-pixel-spacing',
      message: `The images in this series do not all have the same pixel size (${spacingWords(first.info.pixelSpacing)} and ${spacingWords(spacingOdd.info.pixelSpacing)}), so they do not form one volume.`,
      file: spacingOdd.header.path,
    });
  }
  const format = firstOtherPixelFormat(raw);
  if (format) {
    problems.push({
      severity: 'error',
      code: 'mixed-pixel-format',
      message: `The images in this series do not all store their pixels the same way (${format.what}), so their values do not form one volume.`,
      file: format.item.header.path,
    });
  }
  const tilted = firstTilted(raw, orientation);
  if (tilted) {
    problems.push({
      severity: 'error',
      code: 'mixed-orientations',
      message:
        'The images in this series are not all oriented the same way (mixed planes or angles), so they do not form one volume.',
      file: tilted.header.path,
    });
  }

  const { row, col, normal } = directions(orientation);
  placeGridFrames(raw, normal);
  let framesWithoutPosition = 0;
  for (let i = 0; i < raw.length; i++) if (raw[i]!.info.position === undefined) framesWithoutPosition++;
  const positionsKnown = framesWithoutPosition === 0;
  const headerSpacing = first.header.spacingBetweenSlices ?? first.header.sliceThickness;
  const sliceSpacingKnown = positionsKnown || (headerSpacing !== undefined && headerSpacing > 0);
  let frames: FrameRef[];
  if (positionsKnown) {
    frames = [];
    for (let i = 0; i < raw.length; i++) {
      const r = raw[i]!;
      const p = r.info.position!;
      frames.push({
        header: r.header,
        frameIndex: r.frameIndex,
        info: r.info,
        position: p,
        along: p[0] * normal[0] + p[1] * normal[1] + p[2] * normal[2],
      });
    }
    sortAlong(frames);
  } else {
    // Not every position known: for the preview, the order of instance numbers and frames, spaced as
    // the header says. No model is made of it (segmentation-fitness.ts).
    if (raw.length > 1) {
      const which = slicesWord(framesWithoutPosition, raw.length);
      problems.push({
        severity: 'warning',
        code: 'no-positions',
        message: sliceSpacingKnown
          ? `${which} not record where ${framesWithoutPosition === 1 ? 'it lies' : 'they lie'} in the patient; the preview puts the slices in order by their numbers, ${headerSpacing} mm apart as the file says.`
          : `${which} not record where ${framesWithoutPosition === 1 ? 'it lies' : 'they lie'} in the patient, and the files do not say how far apart the slices are; the preview shows them 1 mm apart.`,
      });
    }
    const origin = first.info.position ?? ([0, 0, 0] as Vec3);
    const step = headerSpacing && headerSpacing > 0 ? headerSpacing : 1;
    const ordered = [...raw].sort(
      (a, b) =>
        (a.header.instanceNumber ?? 0) - (b.header.instanceNumber ?? 0) || a.frameIndex - b.frameIndex,
    );
    frames = ordered.map((r, k) => {
      const position: Vec3 = [
        origin[0] + k * step * normal[0],
        origin[1] + k * step * normal[1],
        origin[2] + k * step * normal[2],
      ];
      return {
        header: r.header,
        frameIndex: r.frameIndex,
        info: r.info,
        position,
        along: dot(position, normal),
      };
    });
  }

  // A rebuilt grid stays within the memory a volume may take, as floats (the larger sample).
  const [planeColumns, planeRows] = commonSize.split('x').map(Number) as [number, number];
  const stack = stackGrid(
    frames.map((f) => f.position),
    normal,
    headerSpacing && headerSpacing > 0 ? headerSpacing : 1,
    Math.floor(MAX_VOLUME_BYTES / (planeColumns * planeRows * 4)),
    frames.map((f) => f.header.sliceThickness),
  );
  // Slices within a micrometre of the one before, or a twentieth of the slices' spacing: the first of
  // them, and how many. No scanner places one slice 0.01 mm from another; two scans interleaved do
  // (a review: such a slice, another image, was called uneven spacing and left out of the grid).
  const { offsets } = stack;
  const near = Math.max(1e-3, NEAR_SHARE * stack.spacing);
  let duplicates = 0;
  let k = -1;
  for (let i = 1; i < offsets.length; i++) {
    if (offsets[i]! - offsets[i - 1]! <= near) {
      duplicates++;
      if (k < 0) k = i;
    }
  }
  if (duplicates > 0 && oneStack) {
    problems.push({
      severity: 'error',
      code: 'duplicate-positions',
      message: `${duplicates} slice${duplicates > 1 ? 's lie' : ' lies'} at the same place as another one${near > 1e-3 ? ` or within ${fmt(near, 2)} mm of it` : ''} (at ${fmt(frames[k]!.along)} mm). The series may hold two scans or repeated images.`,
      file: frames[k]!.header.path,
    });
  }
  const lean = stackLeanDegrees(stack.dir, normal);
  // Against an orientation that is no direction (refused on its own), no angle means anything.
  if (
    positionsKnown &&
    oneStack &&
    frames.length > 1 &&
    duplicates === 0 &&
    isValidOrientation(orientation) &&
    lean > MAX_STACK_LEAN_DEG
  ) {
    problems.push({
      severity: 'error',
      code: 'stack-across-slices',
      message: `The slice positions step ${fmt(lean, 0)}° away from the direction the images face (their normal)${lean > 89.5 ? ': the slices lie side by side in one plane, not one behind the other' : ''}. A scanner tilts its gantry at most about 30°, so these positions cannot be right, and a model built on them would be flattened and misplaced.`,
      file: frames[frames.length - 1]!.header.path,
    });
  }
  if (positionsKnown && oneStack && frames.length > 2 && duplicates === 0)
    reportSpacing(frames, stack, first.info.pixelSpacing, problems);

  const pixelSpacing = first.info.pixelSpacing ?? [1, 1];
  // A Pixel Spacing that is there but cannot be read is named by the refusal (fitness-input.ts), which
  // quotes it: saying also that the files state none would contradict it.
  const unreadable = first.header.unreadableNumbers?.some((u) => u.tag === HEADER_TAGS[TAG.pixelSpacing]);
  if (!first.info.pixelSpacing && !unreadable) {
    problems.push({
      severity: 'warning',
      code: 'no-pixel-spacing',
      message:
        'The images do not state their pixel size in the patient (Pixel Spacing), so the scan has no physical scale: the preview shows it with 1 mm pixels, and it cannot be made into a model.',
    });
  }
  const [rowsStr, colsStr] = commonSize.split('x').reverse();
  return {
    layout: {
      frames,
      rows: Number(rowsStr),
      columns: Number(colsStr),
      orientation,
      rowDir: row,
      colDir: col,
      normal,
      pixelSpacing: [pixelSpacing[0], pixelSpacing[1]],
      pixelSpacingKnown: first.info.pixelSpacing !== undefined,
      framesWithoutOrientation,
      framesWithoutPosition,
      sliceSpacing: stack.spacing,
      stack,
      positionsKnown,
      sliceSpacingKnown,
    },
    problems,
  };
}

/**
 * Frames of a multi-frame file without per-frame positions (RT Dose style) are placed by the
 * GridFrameOffsetVector: offsets along the normal, relative to the first frame (whether the vector
 * starts at 0, relative, or at the first frame's own coordinate, absolute).
 */
function placeGridFrames(
  raw: { header: DicomHeader; frameIndex: number; info: FrameInfo }[],
  normal: Vec3,
): void {
  for (let i = 0; i < raw.length; i++) {
    const r = raw[i]!;
    const offsets = r.header.gridFrameOffsets;
    const origin = r.header.frames[0]?.position;
    if (r.info.position || !offsets || !origin) continue;
    const d = (offsets[r.frameIndex] ?? NaN) - offsets[0]!;
    if (!Number.isFinite(d)) continue;
    r.info = {
      ...r.info,
      position: [origin[0] + d * normal[0], origin[1] + d * normal[1], origin[2] + d * normal[2]],
    };
  }
}

/** "The slices do" / "3 of the 140 slices do" / "1 of the 140 slices does". */
export function slicesWord(n: number, of: number): string {
  if (n >= of) return of === 1 ? 'The image does' : 'The slices do';
  return `${n} of the ${of} slices ${n === 1 ? 'does' : 'do'}`;
}

/**
 * Sorts frames along the normal, then by instance number and frame. Without two frames at the same
 * place (the usual case) the order is the positions' alone: sorted as numbers natively, rather than
 * by a comparison function called n log n times.
 */
function sortAlong(frames: FrameRef[]): void {
  const along = new Float64Array(frames.length);
  for (let k = 0; k < frames.length; k++) along[k] = frames[k]!.along;
  along.sort();
  // NaN sorts last here; compared by the function, it leaves the order to the sort's own steps.
  let ties = along.length > 0 && Number.isNaN(along[along.length - 1]);
  for (let k = 1; k < along.length && !ties; k++) ties = along[k] === along[k - 1];
  if (ties) {
    frames.sort(
      (a, b) =>
        a.along - b.along ||
        (a.header.instanceNumber ?? 0) - (b.header.instanceNumber ?? 0) ||
        a.frameIndex - b.frameIndex,
    );
    return;
  }
  const at = new Map<number, FrameRef>();
  for (let k = 0; k < frames.length; k++) at.set(frames[k]!.along, frames[k]!);
  for (let k = 0; k < along.length; k++) frames[k] = at.get(along[k]!)!;
}
