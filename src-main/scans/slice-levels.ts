import { AppError } from '../../src-shared/errors.js';
import type { SliceLayout } from './slice-layout.js';
import { sliceName } from './slice-likeness.js';
import { sortSamples } from './sample-sort.js';
import type { Volume } from './volume.js';

/**
 * A slice whose values sit apart from those of both its neighbours while they agree: one file's
 * Rescale Intercept or Slope is not the others' (a review: one slice with an intercept of 2000, or none
 * at all, became a plate of "bone" across the whole model, and the job said done). The correlation of
 * slice-likeness.ts does not see it, as an offset or a scale leaves the image's pattern as it was.
 *
 * Each slice is summed up by five quantiles of its values (10 to 90 %). A slice is refused when at
 * least three of them, the lowest (air or padding) among them, lie beyond LEVEL_SHARE of the scan's
 * range from both neighbours', one way, and none moved the other way by a quarter as much, while the neighbours agree
 * within half of that.
 * Metal streaks in one slice push its high quantiles up and its low ones down alike; noise and thick
 * slices move none (the real scans and variants with noise of 150 and 450 HU, slices 3 and 6 apart:
 * at most one quantile, never three).
 */

const QUANTILES = [0.1, 0.25, 0.5, 0.75, 0.9];
/** Of the scan's range (a typical slice's values, 0.5 % to 99.5 %): about 90 HU on CT. */
const LEVEL_SHARE = 0.035;
/** Quantiles that must all have moved one way. */
const MOVED = 3;
/** Values sampled per slice: 64 x 64 of a 512 x 512 slice are enough for its quantiles. */
const SAMPLES = 64 * 64;

/** A plane's QUANTILES, and the span of its values (0.5 % to 99.5 %), from about SAMPLES of them. */
function planeQuantiles(v: Volume, k: number, into: Float32Array): { q: number[]; span: number } {
  const [nx, ny] = v.dims;
  const step = sampleStep(v);
  const d = v.data;
  const base = k * nx * ny;
  let n = 0;
  for (let j = 0; j < ny; j += step) for (let i = 0; i < nx; i += step) into[n++] = d[base + j * nx + i]!;
  const sorted = sortSamples(into.subarray(0, n), d instanceof Int16Array);
  const at = (f: number): number => sorted[Math.min(n - 1, Math.floor(f * n))]!;
  return { q: QUANTILES.map(at), span: at(0.995) - at(0.005) };
}

const sampleStep = (v: Volume): number =>
  Math.max(1, Math.floor(Math.sqrt((v.dims[0] * v.dims[1]) / SAMPLES)));

/**
 * Each slice's quantiles, read from the plane at its place (undefined for a slice no plane lies at),
 * and how far apart two levels must be to differ: LEVEL_SHARE of a typical slice's span (air to bone
 * on CT, about 2,500 HU).
 */
function levelsOf(v: Volume, planes: (number | undefined)[]): { q: (number[] | undefined)[]; apart: number } {
  const step = sampleStep(v);
  const scratch = new Float32Array(Math.ceil(v.dims[0] / step) * Math.ceil(v.dims[1] / step));
  const levels = planes.map((p) => (p === undefined ? undefined : planeQuantiles(v, p, scratch)));
  const spans = Float64Array.from(levels.flatMap((l) => (l ? [l.span] : []))).sort();
  return {
    q: levels.map((l) => l?.q),
    apart: spans.length > 0 ? LEVEL_SHARE * spans[spans.length >> 1]! : 0,
  };
}

/**
 * The plane of the volume at each slice's place: the slice's own on an evenly spaced stack; on one
 * rebuilt on an even grid (a slice missing, positions a little uneven), the grid's plane within a tenth
 * of a step of the slice, else none (a review's missing slice had turned the whole check off).
 */
function planesAtSlices(v: Volume, layout: SliceLayout): (number | undefined)[] | undefined {
  const nz = v.dims[2];
  if (!layout.stack.resampled)
    return nz === layout.frames.length ? layout.frames.map((_, k) => k) : undefined;
  const { offsets, step, count } = layout.stack;
  if (!(step > 0) || count !== nz || offsets.length !== layout.frames.length) return undefined;
  return offsets.map((o) => {
    const p = Math.round(o / step);
    return p >= 0 && p < count && Math.abs(o - p * step) <= 0.1 * step ? p : undefined;
  });
}

/** Refuses, naming its file, a slice whose values are shifted or scaled away from both neighbours'. */
export function checkSliceLevels(v: Volume, layout: SliceLayout): void {
  const planes = planesAtSlices(v, layout);
  if (!planes || planes.length < 3) return;
  const { q, apart } = levelsOf(v, planes);
  if (!(apart > 0)) return;
  checkOtherScales(q, layout, apart);
  // The neighbour rule reads neighbouring planes as neighbouring slices: an evenly spaced stack only.
  if (!layout.stack.resampled) checkNeighbours(q as number[][], layout, apart);
}

/** A slice on the common scale moved one way from both of its neighbours, which agree. */
function checkNeighbours(q: number[][], layout: SliceLayout, apart: number): void {
  const nz = q.length;
  for (let k = 1; k + 1 < nz; k++) {
    // Per direction: how many quantiles moved that way, and the largest move.
    let up = 0;
    let down = 0;
    let upBy = 0;
    let downBy = 0;
    let floor = 0;
    for (let i = 0; i < QUANTILES.length; i++) {
      const a = q[k]![i]! - q[k - 1]![i]!;
      const b = q[k]![i]! - q[k + 1]![i]!;
      if (Math.abs(q[k - 1]![i]! - q[k + 1]![i]!) >= apart / 2) continue;
      const by = Math.min(Math.abs(a), Math.abs(b));
      if (a > apart && b > apart) [up, upBy] = [up + 1, Math.max(upBy, by)];
      else if (a < -apart && b < -apart) [down, downBy] = [down + 1, Math.max(downBy, by)];
      else continue;
      if (i === 0) floor = Math.sign(a);
    }
    // One way, by far: a scale that leaves air where it was moves the rest of the values the other
    // way a little (a slope of 3 about -1024); a streak moves both ends alike.
    // The floor (air, or padding) moved with them, as it does when the scale is not the others': noise
    // clipped at the lowest stored value raises a slice's other quantiles, not its floor (a test's
    // phantom slices with noise of +-500 grey values).
    const shift =
      up >= MOVED && floor > 0 && downBy < upBy / 4
        ? upBy
        : down >= MOVED && floor < 0 && upBy < downBy / 4
          ? -downBy
          : 0;
    if (shift !== 0)
      throw levelRefusal(layout, k, nz, shift, 'the slices beside it, which agree with each other');
  }
}

function levelRefusal(layout: SliceLayout, k: number, nz: number, shift: number, whose: string): AppError {
  const by = `${Math.round(Math.abs(shift))} ${shift > 0 ? 'above' : 'below'}`;
  return new AppError(
    'bad-input',
    `The values of slice ${k + 1} of ${nz} (${sliceName(layout, k)}) lie up to ${by} those of ${whose}: its Rescale Slope or Intercept, or its image data, is not like theirs, so its densities cannot be trusted and no model was made of the scan.`,
    {
      action:
        'Export the scan again from the scanner or PACS, and check that every slice states the same value scale.',
    },
  );
}

/** How near a slice of the common scale must lie to be compared with one of another scale. */
const NEAR_SLICES = 4;

/**
 * Slices whose Rescale Slope and Intercept are not the scan's common ones: each must read like the two
 * nearest slices of the common scale (within LEVEL_SHARE of the range their quantiles span), which is
 * what a scanner that stores some slices on another scale with their pixels to match does. The neighbour
 * rule above needs two agreeing neighbours; a review's runs of two or three slices with an intercept of
 * 300 or 2000, end slices, and slopes that keep air where it was (1.5 about -1000) passed it.
 */
function checkOtherScales(q: (number[] | undefined)[], layout: SliceLayout, apart: number): void {
  const nz = q.length;
  const scale = (k: number): string => {
    const info = layout.frames[k]!.info;
    return `${info.slope}/${info.intercept}`;
  };
  const counts = new Map<string, number>();
  for (let k = 0; k < nz; k++) counts.set(scale(k), (counts.get(scale(k)) ?? 0) + 1);
  if (counts.size < 2) return;
  const common = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  // Slices known to read on the common scale: those stating it, then each slice on another scale once
  // it reads like them. So a long run on another scale is checked from its ends inwards: a review's
  // run of twelve, its four end slices matched and its middle ones not, passed a check against the
  // nearest slices of the common scale only.
  const trusted = Array.from({ length: nz }, (_, k) => scale(k) === common && q[k] !== undefined);
  for (let progress = true; progress;) {
    progress = false;
    for (let k = 0; k < nz; k++) {
      const own = q[k];
      if (trusted[k] || own === undefined) continue;
      const near: number[] = [];
      for (let d = 1; d <= NEAR_SLICES && near.length < 2; d++)
        for (const j of [k - d, k + d]) if (j >= 0 && j < nz && near.length < 2 && trusted[j]) near.push(j);
      if (near.length === 0) continue;
      const shift = offScale(
        own,
        near.map((j) => q[j]!),
        apart,
      );
      if (shift !== 0)
        throw levelRefusal(
          layout,
          k,
          nz,
          shift,
          'the slices near it that state the scan’s common value scale',
        );
      trusted[k] = true;
      progress = true;
    }
  }
}

/** How far a slice's quantiles lie outside those of the slices it is read against; 0 when within. */
function offScale(own: number[], refsOf: number[][], apart: number): number {
  let moved = 0;
  let shift = 0;
  for (let i = 0; i < QUANTILES.length; i++) {
    const refs = refsOf.map((r) => r[i]!);
    const over = own[i]! - (Math.max(...refs) + apart);
    const under = own[i]! - (Math.min(...refs) - apart);
    const off = over > 0 ? over + apart : under < 0 ? under - apart : 0;
    if (off === 0) continue;
    moved++;
    if (Math.abs(off) > Math.abs(shift)) shift = off;
  }
  return moved >= 2 ? shift : 0;
}
