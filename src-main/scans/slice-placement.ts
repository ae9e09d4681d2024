import { AppError } from '../../src-shared/errors.js';
import {
  commonValues,
  correlation,
  movedCorrelation,
  sampleStep,
  type PlaneMove,
  type ValueWindow,
} from './plane-correlation.js';
import type { SliceLayout } from './slice-layout.js';
import { fewValues, sliceName } from './slice-likeness.js';
import type { Volume } from './volume.js';

/**
 * A slice whose image is shifted, turned or mirrored against the slices around it (the patient moved
 * during it, or the image was changed after the scan) still correlates 0.5-0.8 with them, far above
 * what a damaged slice does (slice-likeness.ts), and a model of the scan has a step in its surface
 * there. What tells it is that the slices around it are like each other, across it, more than either
 * is like it. On the real head and phantom (clean, or with noise of 150 HU on every voxel) the slices
 * beside any slice correlate with each other at most 0.006 more than with it; a slice shifted 3 pixels
 * (1.35-2.9 mm) drops 0.1-0.15 below them, mirrored 0.19-0.82. A copy of a slice from elsewhere in
 * the scan (a far duplicate) is told the same way, and named with the slice it copies.
 */

/** The longest run of misplaced slices told apart (a run's slices may be misplaced alike). */
const MAX_RUN = 3;
/** The slices around the run correlate at least this much with each other... */
const AROUND_ALIKE = 0.9;
/** ...and this much more than the run's edges correlate with them... */
const MIN_DROP = 0.08;
/**
 * ...and the edges are this many times as unlike (1 - correlation) as the slices around the run are.
 * Noise alone brings the ratio of real neighbours to 1.0 (clean: 0.54); three slices shifted 5 pixels
 * reach 2.2, the slices around them being four apart.
 */
const MIN_UNLIKENESS_RATIO = 2;
/**
 * The values read: those between the 0.5 % and 99.5 % quantiles of the scan. Metal of 8,000-20,000
 * in one slice (an extended-range CT) swamps that slice's correlations otherwise.
 */
const EXTREME_SHARE = 0.005;

/**
 * How a slice of the run is matched to the slice before it: mirrored or not, either way, and shifted
 * up to a tenth of the image. Noise on one slice (a review's test: grey values of one slice in three
 * jittered by up to 500) lowers its correlations as a shift does; no move brings them back.
 */
const MAX_SHIFT_SHARE = 0.1;
/** A slice elsewhere correlating at least this much with it holds its image. */
const TWIN_ALIKE = 0.99;
/** Moved as found, the slice correlates with its neighbour at least this close to `around`. */
const MOVED_WITHIN = MIN_DROP / 2;

/**
 * Turns tried (degrees either way), unmirrored: a patient's head turns in the scanner's plane by a
 * few degrees to a few tens; a slice turned 15° correlates as little as one shifted 3 pixels. Beyond
 * 24°, and a quarter turn (a review turned slices 35-90°), more coarsely.
 */
const TURNS = [0, 4, 8, 12, 16, 20, 24, 30, 36, 42, 48, 54, 60, 90].flatMap((t) => (t === 0 ? [0] : [t, -t]));
/** How many of the best coarse moves, each of another kind (mirror, turn), are refined. */
const REFINED_KINDS = 3;
/** Turns tried either side of the best coarse one, to the degree. */
const TURN_REFINE = [0, -1, 1, -2, 2, -3, 3];

/** The move of plane `moving` that makes it most like plane `fixed`, and their correlation then. */
function bestMove(
  v: Volume,
  fixed: number,
  moving: number,
  window: ValueWindow,
): { move: PlaneMove; r: number } {
  const [nx, ny] = v.dims;
  const stride = Math.max(1, Math.round(Math.max(4, MAX_SHIFT_SHARE * Math.max(nx, ny)) / 8));
  // Eight strides either way: the coarse grid holds the unshifted move (a mirror alone, a turn alone).
  const range = 8 * stride;
  // A coarse search on a sparser grid, then the best found of each kind (mirrored, turned) refined
  // pixel by pixel and degree by degree: a head nearly symmetric about a column off the middle is
  // alike shifted as mirrored, and the best coarse move alone was the wrong kind (a review).
  const fine = sampleStep(v);
  const kinds: { move: PlaneMove; r: number }[] = [];
  const coarse = (mirrorX: boolean, mirrorY: boolean, turn: number): void => {
    let best = { move: { mirrorX, mirrorY, turn, dx: 0, dy: 0 }, r: -Infinity };
    for (let dy = -range; dy <= range; dy += stride)
      for (let dx = -range; dx <= range; dx += stride) {
        const move = { mirrorX, mirrorY, turn, dx, dy };
        const r = movedCorrelation(v, fixed, moving, window, move, 2 * fine);
        if (r > best.r) best = { move, r };
      }
    kinds.push(best);
  };
  for (const mirrorX of [false, true]) for (const mirrorY of [false, true]) coarse(mirrorX, mirrorY, 0);
  for (const turn of TURNS.slice(1)) coarse(false, false, turn);
  kinds.sort((a, b) => b.r - a.r);
  let best = { move: kinds[0]!.move, r: -Infinity };
  for (const { move: found } of kinds.slice(0, REFINED_KINDS)) {
    const { mirrorX, mirrorY, turn: ct, dx: cx, dy: cy } = found;
    for (const t of ct === 0 && (mirrorX || mirrorY) ? [0] : TURN_REFINE)
      for (let dy = cy - stride; dy <= cy + stride; dy++)
        for (let dx = cx - stride; dx <= cx + stride; dx++) {
          const move = { mirrorX, mirrorY, turn: ct + t, dx, dy };
          const r = movedCorrelation(v, fixed, moving, window, move, fine);
          if (r > best.r) best = { move, r };
        }
  }
  return best;
}

/**
 * Why the run a..b is out of place among slices that correlate `around` across it (or, at an end of
 * the stack, beyond it), in words, or null when nothing explains it (noise, blur: it is only unlike
 * them). Explained: a move puts the run's slice `moving` back beside its neighbour `fixed` outside the
 * run, or that slice is the image of a slice elsewhere.
 */
function misplacement(
  v: Volume,
  [a, b]: [number, number],
  [fixed, moving]: [number, number],
  around: number,
  window: ValueWindow,
  name: (k: number) => string,
): string | null {
  const [it, itIs] = a === b ? ['it', 'it is'] : [`slice ${moving + 1}`, 'that is'];
  const { move, r } = bestMove(v, fixed, moving, window);
  const moved = move.mirrorX || move.mirrorY || move.turn !== 0 || move.dx !== 0 || move.dy !== 0;
  if (moved && r >= around - MOVED_WITHIN)
    return `and ${r.toFixed(2)} with ${it} once ${itIs} ${moveWords(move, v.spacing)}: the patient moved, or the images were changed after the scan`;
  let twin = -1;
  let best = -Infinity;
  for (let m = 0; m < v.dims[2]; m++) {
    if (m >= a - 1 && m <= b + 1) continue;
    const c = correlation(v, moving, m, window);
    if (c > best) [twin, best] = [m, c];
  }
  // A copy is the same image, not one alike: slices streaked by metal at two heights correlated
  // 0.93 (a review), a copied slice 1.00.
  if (twin < 0 || best < Math.max(around, TWIN_ALIKE)) return null;
  return `and ${it} correlates ${best.toFixed(2)} with slice ${twin + 1} (${name(twin)}): ${itIs} a copy of that slice's image, or its position is wrong`;
}

/** A move in words, with its length in millimetres on the image's pixel spacing. */
function moveWords({ mirrorX, mirrorY, turn, dx, dy }: PlaneMove, spacing: readonly number[]): string {
  const parts: string[] = [];
  if (mirrorX && mirrorY) parts.push('turned upside down');
  else if (mirrorX) parts.push('mirrored left to right');
  else if (mirrorY) parts.push('mirrored top to bottom');
  if (turn !== 0)
    parts.push(`turned ${Math.abs(turn)}° ${turn > 0 ? 'clockwise' : 'anticlockwise'} about its middle`);
  if (dx !== 0 || dy !== 0) {
    const mm = Math.hypot(dx * spacing[0]!, dy * spacing[1]!);
    parts.push(
      `shifted ${Math.abs(dx)} pixels ${dx < 0 ? 'left' : 'right'} and ${Math.abs(dy)} ${dy < 0 ? 'up' : 'down'} (${mm.toFixed(1)} mm)`,
    );
  }
  return parts.join(', then ');
}

/**
 * Refuses, in words naming its files, a volume with a run of up to MAX_RUN slices out of place among
 * the slices around it, or at either end of the stack among the slices beyond it. Only on a volume
 * whose planes are the slices themselves (volume-reader.ts reads the slices of a rebuilt grid apart).
 */
export function checkSlicesInPlace(v: Volume, layout: SliceLayout): void {
  const nz = v.dims[2];
  if (layout.stack.resampled || nz !== layout.frames.length || nz < 3) return;
  const window = commonValues(v, EXTREME_SHARE);
  const next = new Float64Array(nz - 1);
  for (let k = 0; k + 1 < nz; k++) next[k] = correlation(v, k, k + 1, window);
  const name = (k: number): string => sliceName(layout, k);
  /**
   * The run a..b, whose edges correlate `edges` with the slices beside it, against `aroundOf()`: how
   * the slices it lies among correlate with each other (computed only for a run whose edges drop, as
   * this runs for every run of every job). Throws when it is out of place.
   */
  const check = (
    a: number,
    b: number,
    edges: number[],
    aroundOf: () => number,
    match: [number, number],
  ): void => {
    const edge = Math.max(...edges);
    // The slices around cannot correlate MIN_DROP more than 1: nothing to read across.
    if (edge > 1 - MIN_DROP) return;
    // A slice of a few values is empty (an end slice, air set to one value, padding around it), not an
    // image out of place: two such slices, at both ends of a scan, were called copies of each other.
    if (fewValues(v, match[1])) return;
    const around = aroundOf();
    if (around < AROUND_ALIKE || around - edge < MIN_DROP) return;
    if (1 - edge < MIN_UNLIKENESS_RATIO * (1 - around)) return;
    // Out of place only if some move puts it back: else it is only unlike them (noise, blur).
    const why = misplacement(v, [a, b], match, around, window, name);
    if (!why) return;
    const said = edges.map((r) => r.toFixed(2)).join(' and ');
    const beside = edges.length === 2 ? 'the slices beside' : 'the slice beside';
    const those =
      edges.length === 2
        ? `while those correlate ${around.toFixed(2)} with each other`
        : `while the next two correlate ${around.toFixed(2)} with each other`;
    const which =
      a === b
        ? `The image of slice ${a + 1} of ${nz} (${name(a)}) is out of place: it correlates ${said} with ${beside} it`
        : `The images of slices ${a + 1} to ${b + 1} of ${nz} (${name(a)} to ${name(b)}) are out of place: they correlate ${said} with ${beside} them`;
    throw new AppError('bad-input', `${which}, ${those}, ${why}, so no model was made of the scan.`, {
      action:
        'Look at the scan around those slices: if the patient moved, the scan has to be made again; otherwise export it again from the scanner or PACS.',
    });
  };
  for (let a = 1; a < nz - 1; a++)
    for (let b = a; b < a + MAX_RUN && b + 1 < nz; b++)
      check(a, b, [next[a - 1]!, next[b]!], () => correlation(v, a - 1, b + 1, window), [a - 1, a]);
  // A run at either end has slices on one side only: it is read against the two slices past it, as
  // alike as slices beside each other are (a review put another image 0.5 mm below a stack's first).
  for (let b = 0; b < MAX_RUN && b + 2 < nz; b++) check(0, b, [next[b]!], () => next[b + 1]!, [b + 1, b]);
  for (let a = nz - 1; a > nz - 1 - MAX_RUN && a >= 2; a--)
    check(a, nz - 1, [next[a - 1]!], () => next[a - 2]!, [a - 1, a]);
}
