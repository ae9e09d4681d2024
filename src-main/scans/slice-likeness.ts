import { basename } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import type { SliceLayout } from './slice-layout.js';
import { correlation, sampleStep } from './plane-correlation.js';
import type { Volume } from './volume.js';

/**
 * A slice unlike both of its neighbours while they are like each other: its image data decoded to
 * something else. Not every damage can be told by a decoder: JPEG 2000 coded data lost to zeros (the
 * codestream's markers kept) decodes without a word to a flat or noisy image, and a job made a mesh
 * with a hole through the skull where that slice lay. On the real scans every slice correlates
 * 0.87 or more with a neighbour, also at the top of the head, where neighbours two slices apart
 * correlate 0.6; a slice decoded from zeros correlates 0.0.
 */

/** Below this correlation two neighbouring slices are unlike. */
const UNLIKE = 0.2;
/** ...in a scan whose neighbouring slices mostly (the median) correlate at least this much. */
const ALIKE = 0.6;

/** The variance of a plane's values, over the same samples as the correlation. */
function variance(v: Volume, k: number): number {
  const [nx, ny] = v.dims;
  const step = sampleStep(v);
  const d = v.data;
  let s = 0;
  let ss = 0;
  let n = 0;
  for (let j = 0; j < ny; j += step)
    for (let i = 0; i < nx; i += step) {
      const x = d[k * nx * ny + j * nx + i] as number;
      s += x;
      ss += x * x;
      n++;
    }
  return ss / n - (s / n) ** 2;
}

/**
 * A damaged slice is one value (zeros decoded) or holds as much variation as the scan's slices do
 * (garbage decoded): at least this share of their median variance. A slice with little in it, such
 * as air past the top of the head with the scanner's noise, is unlike its neighbours and not damaged
 * (a review: the real head with noise of 150 HU was refused at its top slice).
 */
const DAMAGED_MIN_VARIANCE_SHARE = 0.25;

/** Whether a plane holds one value only (what zeroed coded data often decodes to). */
export function flat(v: Volume, k: number): boolean {
  const plane = v.dims[0] * v.dims[1];
  const d = v.data;
  const first = d[k * plane] as number;
  for (let p = k * plane + 1; p < (k + 1) * plane; p++) if (d[p] !== first) return false;
  return true;
}

/** Most distinct values a plane with no image in it holds (air, padding, a table set to one value). */
const FEW_VALUES = 8;

/** Whether plane k holds at most FEW_VALUES distinct values: no image of the patient in it. */
export function fewValues(v: Volume, k: number): boolean {
  const size = v.dims[0] * v.dims[1];
  const seen = new Set<number>();
  for (let p = k * size; p < (k + 1) * size; p++) {
    seen.add(v.data[p] as number);
    if (seen.size > FEW_VALUES) return false;
  }
  return true;
}

/** A slice of the layout as the user finds it: its file, or its frame of a multi-frame file. */
export function sliceName(layout: SliceLayout, k: number): string {
  const f = layout.frames[k]!;
  return f.header.numberOfFrames > 1
    ? `frame ${f.frameIndex + 1} of ${basename(f.header.path)}`
    : basename(f.header.path);
}

/** The most slices a run unlike the rest may span to be called damaged: a few, or 5 % of the scan. */
const maxRun = (slices: number): number => Math.max(3, Math.floor(0.05 * slices));

/**
 * Refuses, in words naming its files, a volume with a short run of slices (one, two, at either end)
 * unlike the slices around it, in a scan whose neighbouring slices are otherwise alike. Runs of one
 * value at either end are let be (empty end slices); a long run is a scan in two parts, not damage:
 * refused as such (checkSeams).
 * Only on a volume whose planes are the slices themselves (evenly spaced); a resampled plane blends
 * two slices, and its damage is not told here.
 */
export function checkSlicesAlike(v: Volume, layout: SliceLayout): void {
  const nz = v.dims[2];
  if (layout.stack.resampled || nz !== layout.frames.length || nz < 3) return;
  const next = new Float64Array(nz - 1);
  for (let k = 0; k + 1 < nz; k++) next[k] = correlation(v, k, k + 1);
  const sorted = Float64Array.from(next).sort();
  // Neighbours mostly unlike (noise, slices far apart): no slice can be told apart from the rest.
  if (sorted[sorted.length >> 1]! < ALIKE) return;
  // Runs between the places where neighbours are unlike: the longest is the scan.
  const runs: [number, number][] = [];
  let from = 0;
  for (let k = 0; k < nz - 1; k++) {
    if (next[k]! >= UNLIKE) continue;
    runs.push([from, k]);
    from = k + 1;
  }
  if (runs.length === 0) return;
  runs.push([from, nz - 1]);
  const longest = runs.reduce((a, b) => (b[1] - b[0] > a[1] - a[0] ? b : a));
  const variances = Array.from({ length: nz }, (_, k) => variance(v, k));
  const typical = Float64Array.from(variances).sort()[nz >> 1]!;
  for (const run of runs) {
    const [a, b] = run;
    if (run === longest || b - a + 1 > maxRun(nz)) continue;
    const planes = Array.from({ length: b - a + 1 }, (_, k) => a + k);
    // One value at either end: empty end slices. Little variation: slices with little in them.
    if ((a === 0 || b === nz - 1) && planes.every((k) => flat(v, k))) continue;
    if (planes.some((k) => !flat(v, k) && variances[k]! < DAMAGED_MIN_VARIANCE_SHARE * typical)) continue;
    const name = (k: number): string => sliceName(layout, k);
    const around = [a > 0 ? next[a - 1]! : undefined, b < nz - 1 ? next[b]! : undefined]
      .filter((r): r is number => r !== undefined)
      .map((r) => r.toFixed(2));
    const which =
      a === b
        ? `The image of slice ${a + 1} of ${nz} (${name(a)}) is like ${around.length === 2 ? 'neither slice' : 'no slice'} beside it`
        : `The images of slices ${a + 1} to ${b + 1} of ${nz} (${name(a)} to ${name(b)}) are like no slice beside them`;
    throw new AppError(
      'bad-input',
      `${which} (${a === b ? 'it correlates' : 'they correlate'} ${around.join(' and ')} with ${a === b ? (around.length === 2 ? 'them' : 'it') : around.length === 2 ? 'the slices around them' : 'the slice next to them'}, while half of the scan's neighbouring slices correlate ${sorted[sorted.length >> 1]!.toFixed(2)} or more): its image data is damaged, or the patient moved, so no model was made of the scan.`,
      {
        action:
          'Export the scan again from the scanner or PACS; if its images show the patient moved, the scan has to be made again.',
      },
    );
  }
  checkSeams(v, layout, runs, next, sorted[sorted.length >> 1]!);
}

/**
 * Two long runs of alike slices that meet where neighbours are unlike: not damage, but two scans, or
 * two parts of one, stacked along one series (a review repeated the head 14 times along a stack: the
 * job made one "skull" 585 mm tall). A run of slices of a few values (empty end slices, air set to
 * one value, padding around it) is no scan, and is let be.
 */
function checkSeams(
  v: Volume,
  layout: SliceLayout,
  runs: [number, number][],
  next: Float64Array,
  median: number,
): void {
  const nz = v.dims[2];
  const long = ([a, b]: [number, number]): boolean => b - a + 1 > maxRun(nz);
  for (let r = 1; r < runs.length; r++) {
    const k = runs[r - 1]![1];
    if (!long(runs[r - 1]!) || !long(runs[r]!) || fewValues(v, k) || fewValues(v, k + 1)) continue;
    const name = (i: number): string => sliceName(layout, i);
    throw new AppError(
      'bad-input',
      `The scan changes at once between slice ${k + 1} and slice ${k + 2} of ${nz} (${name(k)} and ${name(k + 1)}): they correlate ${next[k]!.toFixed(2)}, while half of the scan's neighbouring slices correlate ${median.toFixed(2)} or more, and the slices on either side of them are alike for ${runs[r - 1]![1] - runs[r - 1]![0] + 1} and ${runs[r]![1] - runs[r]![0] + 1} slices. The series holds two scans one after the other, or the slices between them are missing or out of order, so no model was made of the scan.`,
      {
        action:
          'Export the scan again from the scanner or PACS; if the series holds two scans, export them as separate series and choose one.',
      },
    );
  }
}
