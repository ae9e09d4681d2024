/**
 * Grey-value histograms and Otsu's threshold. CBCT grey values are not calibrated Hounsfield units
 * (they drift with the device, the field of view and the patient), so every threshold the engine
 * uses is derived from the scan's own histogram instead of fixed numbers.
 */

import { AppError } from '../../../src-shared/errors.js';

export interface Histogram {
  counts: Float64Array;
  /** Value at the lower edge of bin 0. */
  min: number;
  /** Values v with min + b * binWidth <= v < min + (b + 1) * binWidth fall in bin b. */
  binWidth: number;
  /** True when bins hold single integer values (Int16 data), so thresholds can sit halfway between them. */
  integer: boolean;
}

const FLOAT_BINS = 4096;

export function histogram(data: Int16Array | Float32Array): Histogram {
  if (data instanceof Int16Array) return int16Histogram(int16Counts(data, 0, data.length));
  let min = Infinity;
  let max = -Infinity;
  let notFinite = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i] as number;
    if (v < min) min = v;
    if (v > max) max = v;
    // v - v is 0 for every finite value and NaN for NaN and the infinities.
    if (v - v !== 0) notFinite++;
  }
  // A value that is no number has no place among the bins, and every comparison with a threshold is
  // false for it (a run search once stopped on one for good). The fitness check refuses the rescales
  // that make such values from stored ones; this stops any other way in before a threshold is set.
  if (notFinite > 0) {
    throw new AppError(
      'bad-input',
      `${notFinite} of the scan's ${data.length} voxel values are not finite numbers, so no threshold can be derived from them.`,
      {
        action:
          'Export the series again from the scanner software; the values it wrote cannot be read as densities.',
      },
    );
  }
  if (!(max > min))
    return {
      counts: new Float64Array([data.length]),
      min: Number.isFinite(min) ? min : 0,
      binWidth: 1,
      integer: false,
    };
  const binWidth = (max - min) / FLOAT_BINS;
  const counts = new Float64Array(FLOAT_BINS);
  for (let i = 0; i < data.length; i++) {
    const b = Math.min(FLOAT_BINS - 1, Math.floor(((data[i] as number) - min) / binWidth));
    counts[b] = (counts[b] as number) + 1;
  }
  return { counts, min, binWidth, integer: false };
}

/** The histogram of int16 data from the counts of every value (int16Counts, summed over parts). */
export function int16Histogram(raw: Float64Array): Histogram {
  let lo = 0;
  while (lo < 65535 && raw[lo] === 0) lo++;
  let hi = 65535;
  while (hi > lo && raw[hi] === 0) hi--;
  return { counts: raw.slice(lo, hi + 1), min: lo - 32768, binWidth: 1, integer: true };
}

/**
 * Counts of every int16 value (index value + 32768) of data[from, to): the mesh workers count parts
 * of a volume side by side. Four interleaved tables: neighbouring voxels mostly share a value (air,
 * padding), and one table would make each count wait for the previous store to the same counter; four
 * let consecutive voxels count independently (2-3x faster).
 */
export function int16Counts(data: Int16Array, from: number, to: number): Float64Array {
  const T = 65536;
  const c = new Uint32Array(4 * T);
  const n = to;
  const n4 = n - ((n - from) & 3);
  let i = from;
  for (; i < n4; i += 4) {
    c[(data[i] as number) + 32768]!++;
    c[(data[i + 1] as number) + 32768 + T]!++;
    c[(data[i + 2] as number) + 32768 + 2 * T]!++;
    c[(data[i + 3] as number) + 32768 + 3 * T]!++;
  }
  for (; i < n; i++) c[(data[i] as number) + 32768]!++;
  const raw = new Float64Array(T);
  for (let b = 0; b < T; b++) raw[b] = c[b]! + c[b + T]! + c[b + 2 * T]! + c[b + 3 * T]!;
  return raw;
}

/** Value of the boundary just above bin b: halfway between integers for integer data. */
function upperEdge(h: Histogram, b: number): number {
  return h.integer ? h.min + b + 0.5 : h.min + (b + 1) * h.binWidth;
}

function binOf(h: Histogram, value: number): number {
  return Math.floor((value - h.min) / h.binWidth);
}

/**
 * Otsu's threshold over the values in (above, below): the split that maximises the between-class
 * variance. Returns the iso value (class "high" is value > threshold), or null when the range holds
 * fewer than two distinct values.
 */
export function otsuThreshold(h: Histogram, range: { above?: number; below?: number } = {}): number | null {
  const n = h.counts.length;
  const b0 = range.above === undefined ? 0 : Math.max(0, binOf(h, range.above) + 1);
  const b1 = range.below === undefined ? n - 1 : Math.min(n - 1, binOf(h, range.below) - 1);
  let total = 0;
  let sum = 0;
  for (let b = b0; b <= b1; b++) {
    const c = h.counts[b] as number;
    total += c;
    sum += c * b;
  }
  if (total === 0) return null;
  let w0 = 0;
  let s0 = 0;
  let best = -1;
  let bestB = -1;
  for (let b = b0; b < b1; b++) {
    const c = h.counts[b] as number;
    w0 += c;
    s0 += c * b;
    const w1 = total - w0;
    if (w0 === 0 || w1 === 0) continue;
    const m0 = s0 / w0;
    const m1 = (sum - s0) / w1;
    const between = w0 * w1 * (m0 - m1) * (m0 - m1);
    if (between > best) {
      best = between;
      bestB = b;
    }
  }
  if (bestB < 0) return null;
  // Empty bins above the best split leave the classes, and so the score, unchanged: any level across
  // that gap splits alike. Its middle is the level where a surface between the two values lies; the
  // gap's lower end put it half a voxel into the denser side wherever the values jump without noise
  // (a phantom made on a computer: -1000 to 40 HU in one step).
  let gapEnd = bestB;
  while (gapEnd + 1 < b1 && h.counts[gapEnd + 1] === 0) gapEnd++;
  if (gapEnd === bestB) return upperEdge(h, bestB);
  const middle = (bestB + gapEnd) / 2;
  return upperEdge(h, h.integer ? Math.floor(middle) : middle);
}

/**
 * The histogram without the values from `from` up. Metal in a head CT (at or past the 12-bit
 * Hounsfield range's top) is no level between tissues, and weighed in it moved them: a review's 512
 * voxels at 32767, 0.007 % of a head CT, pulled Otsu's split of soft tissue from bone up to 2986 HU
 * (the "skull" was four cubes of metal); folded into the top bin, 1.4 % of it at 20,000 still moved the
 * split by 1,089 HU.
 */
export function withoutFrom(h: Histogram, from: number): Histogram {
  const first = binOf(h, from);
  if (first < 1 || first >= h.counts.length) return h;
  return { ...h, counts: h.counts.slice(0, first) };
}

/** The share of a histogram's counts that withoutFrom(h, from) leaves out. */
export function shareFrom(h: Histogram, from: number): number {
  const first = Math.max(0, binOf(h, from));
  let total = 0;
  let out = 0;
  for (let b = 0; b < h.counts.length; b++) {
    const c = h.counts[b] as number;
    total += c;
    if (b >= first) out += c;
  }
  return total > 0 ? out / total : 0;
}
