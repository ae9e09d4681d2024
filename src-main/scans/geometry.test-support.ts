// Helpers for the slice-geometry tests: stacks with gaps cut from the real phantom, the scikit-image
// reference surface, and distances from a mesh to it.
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { phantomBySlice, python } from './scans.test-support.js';

/**
 * Copies phantom slices into `dir` so that neighbouring slices are `steps` mm apart (the phantom's
 * slices are 1 mm apart), starting at slice `start`. Returns the copies and their z (mm).
 */
export function phantomStack(dir: string, start: number, steps: number[]): { files: string[]; z: number[] } {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const ordered = phantomBySlice();
  const picks = [start];
  for (const s of steps) picks.push(picks[picks.length - 1]! + s);
  if (picks[picks.length - 1]! >= ordered.length) throw new Error('stack runs past the phantom');
  // The phantom's z runs 694.21 + k mm; names are opaque, so copies get the order's number.
  const files = picks.map((k, n) => {
    const to = join(dir, `s${String(n).padStart(3, '0')}`);
    copyFileSync(ordered[k]!, to);
    return to;
  });
  return { files, z: picks.map((k) => 694.21 + k) };
}

/**
 * The reference surface, independent of scan2mesh: pydicom reads the files, numpy places every
 * slice at its TRUE position along the line through the positions and interpolates a regular grid
 * at the median spacing, skimage.measure.marching_cubes finds the iso-surface, and its vertices are
 * mapped to patient coordinates (LPS, mm). Written as raw float32 / int32 to `out`.
 */
const REFERENCE = String.raw`
import sys, json, numpy as np, pydicom
from skimage.measure import marching_cubes
iso = float(sys.argv[1]); out = sys.argv[2]; files = sys.argv[3:]
dss = [pydicom.dcmread(f) for f in files]
ori = np.array([float(v) for v in dss[0].ImageOrientationPatient]); r, c = ori[:3], ori[3:]
n = np.cross(r, c)
pos = np.array([[float(v) for v in d.ImagePositionPatient] for d in dss])
order = np.argsort(pos @ n); pos = pos[order]
imgs = [dss[i].pixel_array.astype(np.float32) * float(dss[i].RescaleSlope) + float(dss[i].RescaleIntercept) for i in order]
d = (pos[-1] - pos[0]) / np.linalg.norm(pos[-1] - pos[0])
t = (pos - pos[0]) @ d
step0 = float(np.median(np.diff(t)))
count = int(round(t[-1] / step0)) + 1
grid = np.linspace(0.0, t[-1], count)
vol = np.empty((count,) + imgs[0].shape, np.float32)
for m, z in enumerate(grid):
    k = min(int(np.searchsorted(t, z, side='right')) - 1, len(t) - 2)
    w = (z - t[k]) / (t[k + 1] - t[k])
    vol[m] = imgs[k] * (1 - w) + imgs[k + 1] * w
ps = [float(v) for v in dss[0].PixelSpacing]
verts, faces, _, _ = marching_cubes(vol, level=iso, spacing=(grid[1] - grid[0], ps[0], ps[1]))
P = pos[0] + verts[:, 2:3] * r + verts[:, 1:2] * c + verts[:, 0:1] * d
with open(out, 'wb') as f:
    f.write(P.astype('<f4').tobytes()); f.write(faces.astype('<i4').tobytes())
print(json.dumps({'vertices': len(P), 'triangles': len(faces), 'slices': count}))
`;

export interface Surface {
  positions: Float32Array;
  indices: Uint32Array;
}

export function referenceSurface(files: string[], iso: number, out: string): Surface {
  const info = python<{ vertices: number; triangles: number }>(REFERENCE, [String(iso), out, ...files]);
  const bytes = readFileSync(out);
  const positions = new Float32Array(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + info.vertices * 12),
  );
  const at = bytes.byteOffset + info.vertices * 12;
  const indices = new Uint32Array(bytes.buffer.slice(at, at + info.triangles * 12));
  return { positions, indices };
}

/** One number per cell (cells within ±1000 of the origin, i.e. a few metres: any scan). */
const cellKey = (i: number, j: number, k: number): number =>
  ((i + 1024) * 2048 + (j + 1024)) * 2048 + (k + 1024);

/** Triangles bucketed by the cell of their centroid, for nearest-triangle queries. */
export class TriangleGrid {
  private readonly cells = new Map<number, number[]>();

  constructor(
    private readonly surface: Surface,
    private readonly cell = 1.5,
  ) {
    const { positions: p, indices: ix } = surface;
    for (let t = 0; t < ix.length; t += 3) {
      let cx = 0;
      let cy = 0;
      let cz = 0;
      for (let k = 0; k < 3; k++) {
        const v = ix[t + k]! * 3;
        cx += p[v]!;
        cy += p[v + 1]!;
        cz += p[v + 2]!;
      }
      const key = this.key(cx / 3, cy / 3, cz / 3);
      const list = this.cells.get(key);
      if (list) list.push(t);
      else this.cells.set(key, [t]);
    }
  }

  private key(x: number, y: number, z: number): number {
    return cellKey(Math.floor(x / this.cell), Math.floor(y / this.cell), Math.floor(z / this.cell));
  }

  /** Distance to the nearest triangle within about one cell; Infinity when none is that close. */
  distance(x: number, y: number, z: number): number {
    const [i, j, k] = [x, y, z].map((c) => Math.floor(c / this.cell)) as [number, number, number];
    let best = Infinity;
    for (let a = i - 1; a <= i + 1; a++)
      for (let b = j - 1; b <= j + 1; b++)
        for (let c = k - 1; c <= k + 1; c++) {
          for (const t of this.cells.get(cellKey(a, b, c)) ?? []) {
            best = Math.min(best, this.triangleDistance(t, x, y, z));
          }
        }
    return best;
  }

  /** Point-to-triangle distance (closest point by region, after Ericson's Real-Time Collision Detection). */
  private triangleDistance(t: number, px: number, py: number, pz: number): number {
    const { positions: p, indices: ix } = this.surface;
    const a = ix[t]! * 3;
    const b = ix[t + 1]! * 3;
    const c = ix[t + 2]! * 3;
    const A = [p[a]!, p[a + 1]!, p[a + 2]!];
    const ab = [p[b]! - A[0]!, p[b + 1]! - A[1]!, p[b + 2]! - A[2]!];
    const ac = [p[c]! - A[0]!, p[c + 1]! - A[1]!, p[c + 2]! - A[2]!];
    const ap = [px - A[0]!, py - A[1]!, pz - A[2]!];
    const dot = (u: number[], v: number[]): number => u[0]! * v[0]! + u[1]! * v[1]! + u[2]! * v[2]!;
    const at = (s: number, w: number): number => {
      const q = [
        A[0]! + s * ab[0]! + w * ac[0]!,
        A[1]! + s * ab[1]! + w * ac[1]!,
        A[2]! + s * ab[2]! + w * ac[2]!,
      ];
      return Math.hypot(px - q[0]!, py - q[1]!, pz - q[2]!);
    };
    const d1 = dot(ab, ap);
    const d2 = dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) return at(0, 0);
    const bp = [ap[0]! - ab[0]!, ap[1]! - ab[1]!, ap[2]! - ab[2]!];
    const d3 = dot(ab, bp);
    const d4 = dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) return at(1, 0);
    const vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) return at(d1 / (d1 - d3), 0);
    const cp = [ap[0]! - ac[0]!, ap[1]! - ac[1]!, ap[2]! - ac[2]!];
    const d5 = dot(ab, cp);
    const d6 = dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) return at(0, 1);
    const vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) return at(0, d2 / (d2 - d6));
    const va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
      const w = (d4 - d3) / (d4 - d3 + (d5 - d6));
      return at(1 - w, w);
    }
    const denom = 1 / (va + vb + vc);
    return at(vb * denom, vc * denom);
  }
}

/** Median and 95th percentile of the distances from (a spread of) a mesh's vertices to a surface. */
export function distanceStats(
  positions: Float32Array,
  to: TriangleGrid,
  samples = 15_000,
): { median: number; p95: number; n: number } {
  const n = positions.length / 3;
  const stride = Math.max(1, Math.floor(n / samples));
  const d: number[] = [];
  for (let v = 0; v < n; v += stride)
    d.push(to.distance(positions[v * 3]!, positions[v * 3 + 1]!, positions[v * 3 + 2]!));
  d.sort((a, b) => a - b);
  return { median: d[d.length >> 1]!, p95: d[Math.floor(d.length * 0.95)]!, n: d.length };
}
