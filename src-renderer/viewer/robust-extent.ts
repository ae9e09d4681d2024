/**
 * The extent the camera frames and the size the viewer states: the bulk of the vertices, not a
 * stray few. One triangle a kilometre off a 200 mm skull made the box a kilometre wide: the view
 * framed empty space, the skull shrank to nothing, and the unit hint read "micrometres". The bulk
 * is what lies between the 1st and 99th percentile of each axis (from a sample), widened by its
 * own largest span on every side; vertices beyond that are counted and reported, not framed.
 * Coordinates beyond MAX_COORDINATE are refused outright: nothing there is anatomy.
 */
import { AppError } from '../../src-shared/errors.js';
import { MAX_COORDINATE } from '../../src-shared/mesh-content.js';

type Bounds = [number, number, number, number, number, number];

/** Vertices lying far outside the bulk: how many, and the farthest one's distance from its box (mm). */
export interface Outliers {
  count: number;
  farthest: number;
}

/** Vertices sampled for the percentiles: enough for 1 % to mean a few hundred of them, fast to sort. */
const SAMPLE = 32_768;
const LOW = 0.01;

function percentileBox(positions: Float32Array): Bounds {
  const n = positions.length / 3;
  const step = Math.max(1, Math.floor(n / SAMPLE));
  const m = Math.ceil(n / step);
  const box: Bounds = [0, 0, 0, 0, 0, 0];
  const values = new Float32Array(m);
  for (let k = 0; k < 3; k++) {
    for (let i = 0, v = 0; v < n; i++, v += step) values[i] = positions[v * 3 + k]!;
    values.sort();
    box[k] = values[Math.floor(LOW * (m - 1))]!;
    box[k + 3] = values[Math.ceil((1 - LOW) * (m - 1))]!;
  }
  return box;
}

/**
 * The bounds of the bulk and what lies outside it. `full`: the bounds of every vertex. Throws when
 * a coordinate lies beyond MAX_COORDINATE.
 */
export function robustBounds(
  positions: Float32Array,
  full: Bounds,
): { bounds: Bounds; outliers: Outliers | null } {
  const largest = Math.max(...full.map(Math.abs));
  if (largest > MAX_COORDINATE) {
    throw new AppError(
      'bad-input',
      `The mesh has coordinates as large as ${largest < 1e9 ? Math.round(largest).toLocaleString('en-US') : largest.toPrecision(3)}, beyond ±${MAX_COORDINATE.toLocaleString('en-US')} mm: no anatomy lies that far out, and the view cannot show it.`,
      { action: 'Check the program that wrote the mesh: its coordinates are broken or in the wrong units.' },
    );
  }
  const p = percentileBox(positions);
  const span = Math.max(p[3] - p[0], p[4] - p[1], p[5] - p[2]);
  const fence: Bounds = [p[0] - span, p[1] - span, p[2] - span, p[3] + span, p[4] + span, p[5] + span];
  if (full.every((b, k) => (k < 3 ? b >= fence[k]! : b <= fence[k]!)))
    return { bounds: full, outliers: null };
  const bounds: Bounds = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
  let count = 0;
  for (let i = 0; i < positions.length; i += 3) {
    const x = positions[i]!,
      y = positions[i + 1]!,
      z = positions[i + 2]!;
    if (x < fence[0] || y < fence[1] || z < fence[2] || x > fence[3] || y > fence[4] || z > fence[5]) {
      count++;
      continue;
    }
    if (x < bounds[0]) bounds[0] = x;
    if (y < bounds[1]) bounds[1] = y;
    if (z < bounds[2]) bounds[2] = z;
    if (x > bounds[3]) bounds[3] = x;
    if (y > bounds[4]) bounds[4] = y;
    if (z > bounds[5]) bounds[5] = z;
  }
  // The farthest stray lies at a corner of the full box: its distance from the bulk's box, per axis.
  const beyond = [0, 1, 2].map((k) => Math.max(bounds[k]! - full[k]!, full[k + 3]! - bounds[k + 3]!));
  return { bounds, outliers: { count, farthest: Math.hypot(...beyond) } };
}
