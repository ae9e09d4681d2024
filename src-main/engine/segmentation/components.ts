/**
 * Connected components of a voxel mask, 6-connected (faces only): the connectivity that the
 * marching-cubes table of mc-table.ts gives the surface, so one component is one closed surface.
 *
 * Labelling works on runs of set voxels along rows, with union-find between overlapping runs of the
 * row before and of the slice before. A head CT has a few million runs against tens of millions of
 * voxels, and no label volume is needed: memory is a few arrays per run.
 */

interface ComponentStats {
  /** Voxel count of each component. */
  sizes: Float64Array;
  /** 1 when the component reaches the first or last row, column or (with more than one slice) slice. */
  touchesBorder: Uint8Array;
  /** The highest value in each component, when the values were given (componentsAbove). */
  peaks?: Float64Array;
}

export interface FilterResult {
  components: number;
  kept: number;
  keptVoxels: number;
  largest: number;
  /** Voxels of the largest component left out (0 when none was). */
  largestDropped: number;
}

class GrowI32 {
  buf = new Int32Array(1 << 16);
  n = 0;
  push(v: number): void {
    if (this.n === this.buf.length) {
      const b = new Int32Array(this.buf.length * 2);
      b.set(this.buf);
      this.buf = b;
    }
    this.buf[this.n++] = v;
  }
}

/**
 * Runs of set voxels along rows: row r (= slice * ny + row) holds runs rowStart[r] .. rowStart[r + 1] - 1,
 * each from column st[i] to en[i] - 1. The same voxels as a mask, in far fewer numbers: the surface
 * extraction packs its inside flags from them (slab-grid.ts) without reading a byte per voxel.
 */
export interface InsideRuns {
  rowStart: Int32Array;
  st: Int32Array;
  en: Int32Array;
}

interface Runs extends InsideRuns {
  rowStart: Int32Array;
  /** First voxel of each run and one past its last, as columns. */
  st: Int32Array;
  en: Int32Array;
  count: number;
}

/** The runs of non-zero voxels of a mask. */
function maskRuns(mask: Uint8Array, dims: [number, number, number]): Runs {
  const [nx, ny, nz] = dims;
  const rows = ny * nz;
  const rowStart = new Int32Array(rows + 1);
  const starts = new GrowI32();
  const ends = new GrowI32();
  for (let r = 0; r < rows; r++) {
    rowStart[r] = starts.n;
    const off = r * nx;
    let i = 0;
    while (i < nx) {
      while (i < nx && mask[off + i] === 0) i++;
      if (i >= nx) break;
      const s = i;
      while (i < nx && mask[off + i] !== 0) i++;
      starts.push(s);
      ends.push(i);
    }
  }
  rowStart[rows] = starts.n;
  return { rowStart, st: starts.buf, en: ends.buf, count: starts.n };
}

/** The runs of some rows, as a worker thread finds them: each row's number of runs, then the runs. */
export interface RunsPart {
  counts: Int32Array;
  st: Int32Array;
  en: Int32Array;
}

/**
 * The runs of voxels above `level` in rows [r0, r1) (row r = slice * ny + row, nx voxels each), read
 * straight from the values: no mask is written first. The mesh workers take a share of the rows each.
 */
export function runsAboveInRows(
  data: Int16Array | Float32Array,
  level: number,
  nx: number,
  r0: number,
  r1: number,
): RunsPart {
  const counts = new Int32Array(r1 - r0);
  const starts = new GrowI32();
  const ends = new GrowI32();
  for (let r = r0; r < r1; r++) {
    const before = starts.n;
    const off = r * nx;
    let i = 0;
    while (i < nx) {
      // "Not above", not "at or below": a NaN is neither, and would end both scans on the spot.
      while (i < nx && !((data[off + i] as number) > level)) i++;
      if (i >= nx) break;
      const s = i;
      while (i < nx && (data[off + i] as number) > level) i++;
      starts.push(s);
      ends.push(i);
    }
    counts[r - r0] = starts.n - before;
  }
  return { counts, st: starts.buf.slice(0, starts.n), en: ends.buf.slice(0, ends.n) };
}

/** The parts of consecutive row ranges, from row 0 on, as the runs of all rows. */
function joinRuns(parts: readonly RunsPart[], rows: number): Runs {
  const count = parts.reduce((n, p) => n + p.st.length, 0);
  const rowStart = new Int32Array(rows + 1);
  const st = new Int32Array(count);
  const en = new Int32Array(count);
  let r = 0;
  let at = 0;
  for (const p of parts) {
    st.set(p.st, at);
    en.set(p.en, at);
    for (let k = 0; k < p.counts.length; k++) {
      rowStart[r++] = at;
      at += p.counts[k] as number;
    }
  }
  if (r !== rows) throw new Error(`the runs cover ${r} rows, not ${rows}`);
  rowStart[rows] = at;
  return { rowStart, st, en, count };
}

/**
 * Labels the components of `mask` (non-zero = set), asks `keep` which to keep, and clears the voxels of
 * the others in place (kept voxels become 1).
 */
export function filterComponents(
  mask: Uint8Array,
  dims: [number, number, number],
  keep: (stats: ComponentStats) => Uint8Array,
): FilterResult {
  const runs = maskRuns(mask, dims);
  const { result, kept } = labelRuns(runs, dims, keep);
  const [nx, ny, nz] = dims;
  for (let r = 0; r < ny * nz; r++) {
    const off = r * nx;
    for (let i = runs.rowStart[r] as number; i < (runs.rowStart[r + 1] as number); i++) {
      mask.fill(kept[i] as number, off + (runs.st[i] as number), off + (runs.en[i] as number));
    }
  }
  return result;
}

/**
 * filterComponents of the voxels above `level`, written into `mask`, which must be all zeros (a fresh
 * array): 1 for the kept components. The runs come from the values directly, so the volume is read
 * once and only the kept voxels are written.
 */
export function componentsAbove(
  data: Int16Array | Float32Array,
  level: number,
  dims: [number, number, number],
  keep: (stats: ComponentStats) => Uint8Array,
  mask: Uint8Array,
  /** The runs above `level` when found already, row range by row range (runsAboveInRows). */
  found?: readonly RunsPart[],
): FilterResult & { runs: InsideRuns } {
  const [nx, ny, nz] = dims;
  const rows = ny * nz;
  const runs = joinRuns(found ?? [runsAboveInRows(data, level, nx, 0, rows)], rows);
  const { result, kept } = labelRuns(runs, dims, keep, data);
  let keptRuns = 0;
  for (let i = 0; i < runs.count; i++) keptRuns += kept[i] as number;
  // The kept runs on shared memory too: the extraction's worker threads read them in place.
  const out: InsideRuns = {
    rowStart: new Int32Array(new SharedArrayBuffer((rows + 1) * 4)),
    st: new Int32Array(new SharedArrayBuffer(Math.max(1, keptRuns) * 4)),
    en: new Int32Array(new SharedArrayBuffer(Math.max(1, keptRuns) * 4)),
  };
  let k = 0;
  for (let r = 0; r < rows; r++) {
    out.rowStart[r] = k;
    const off = r * nx;
    for (let i = runs.rowStart[r] as number; i < (runs.rowStart[r + 1] as number); i++) {
      if (!kept[i]) continue;
      const a = runs.st[i] as number;
      const b = runs.en[i] as number;
      mask.fill(1, off + a, off + b);
      out.st[k] = a;
      out.en[k++] = b;
    }
  }
  out.rowStart[rows] = k;
  return { ...result, runs: out };
}

/** Union-find over the runs: the components, what `keep` keeps of them, and per run 1 if kept. */
function labelRuns(
  runs: Runs,
  dims: [number, number, number],
  keep: (stats: ComponentStats) => Uint8Array,
  /** The values the runs were found in: each component's peak is then given to `keep`. */
  data?: Int16Array | Float32Array,
): { result: FilterResult; kept: Uint8Array } {
  const [nx, ny, nz] = dims;
  const rows = ny * nz;
  const { rowStart, st, en, count: runCount } = runs;
  const parent = new Int32Array(runCount);
  for (let i = 0; i < runCount; i++) parent[i] = i;
  const find = (a: number): number => {
    let r = a;
    while ((parent[r] as number) !== r) r = parent[r] as number;
    while ((parent[a] as number) !== r) {
      const next = parent[a] as number;
      parent[a] = r;
      a = next;
    }
    return r;
  };
  const unite = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) {
      if (ra < rb) parent[rb] = ra;
      else parent[ra] = rb;
    }
  };
  const joinRows = (r: number, q: number): void => {
    let a = rowStart[r] as number;
    const aEnd = rowStart[r + 1] as number;
    let b = rowStart[q] as number;
    const bEnd = rowStart[q + 1] as number;
    while (a < aEnd && b < bEnd) {
      if ((st[a] as number) < (en[b] as number) && (st[b] as number) < (en[a] as number)) unite(a, b);
      if ((en[a] as number) < (en[b] as number)) a++;
      else b++;
    }
  };
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      const r = k * ny + j;
      if (j > 0) joinRows(r, r - 1);
      if (k > 0) joinRows(r, r - ny);
    }
  }
  // Components numbered in order of their first run.
  const compOf = new Int32Array(runCount);
  let components = 0;
  for (let i = 0; i < runCount; i++) {
    const root = find(i);
    compOf[i] = root === i ? components++ : (compOf[root] as number);
  }
  const sizes = new Float64Array(components);
  const touchesBorder = new Uint8Array(components);
  const peaks = data ? new Float64Array(components).fill(-Infinity) : undefined;
  for (let r = 0; r < rows; r++) {
    const j = r % ny;
    const k = (r - j) / ny;
    const edgeRow = j === 0 || j === ny - 1 || (nz > 1 && (k === 0 || k === nz - 1));
    for (let i = rowStart[r] as number; i < (rowStart[r + 1] as number); i++) {
      const c = compOf[i] as number;
      sizes[c] = (sizes[c] as number) + (en[i] as number) - (st[i] as number);
      if (edgeRow || st[i] === 0 || en[i] === nx) touchesBorder[c] = 1;
      if (peaks && data) {
        let peak = peaks[c] as number;
        for (let p = r * nx + (st[i] as number), end = r * nx + (en[i] as number); p < end; p++)
          if ((data[p] as number) > peak) peak = data[p] as number;
        peaks[c] = peak;
      }
    }
  }
  const keepFlags = keep(peaks ? { sizes, touchesBorder, peaks } : { sizes, touchesBorder });
  let keptCount = 0;
  let keptVoxels = 0;
  let largest = 0;
  let largestDropped = 0;
  for (let c = 0; c < components; c++) {
    largest = Math.max(largest, sizes[c] as number);
    if (keepFlags[c]) {
      keptCount++;
      keptVoxels += sizes[c] as number;
    } else largestDropped = Math.max(largestDropped, sizes[c] as number);
  }
  const kept = new Uint8Array(runCount);
  for (let i = 0; i < runCount; i++) kept[i] = keepFlags[compOf[i] as number] ? 1 : 0;
  return { result: { components, kept: keptCount, keptVoxels, largest, largestDropped }, kept };
}

/** Keeps every component of at least `minVoxels` and at least `fraction` of the largest one. */
export function keepLarge(fraction: number, minVoxels = 1): (s: ComponentStats) => Uint8Array {
  return ({ sizes }) => {
    let largest = 0;
    for (const s of sizes) largest = Math.max(largest, s);
    const floor = Math.max(minVoxels, fraction * largest);
    const flags = new Uint8Array(sizes.length);
    for (let c = 0; c < sizes.length; c++) flags[c] = (sizes[c] as number) >= floor ? 1 : 0;
    return flags;
  };
}

/**
 * Per plane, sets the unset voxels that the set ones enclose in that plane (4-connected holes not
 * reaching the plane's edge). Works plane by plane on purpose: the airway and the nose open to the
 * outside in 3D, but within an axial plane of the patient the airway is a hole in the tissue. So the
 * planes must be the patient's axial ones, whatever plane the scan was exported in: `axis` is the
 * voxel axis (0 columns, 1 rows, 2 slices) the planes are perpendicular to (headFootAxis). Filled in
 * the export's own slices, a sagittal export of the real head CT gave an airway of 16.9 cm³ and a
 * coronal one 45.8 cm³ instead of 49.3, and a skin with inner surfaces.
 * With `only`, writes the holes there instead of filling them into `mask`.
 */
export function enclosedInSlices(
  mask: Uint8Array,
  dims: [number, number, number],
  only?: Uint8Array,
  axis: 0 | 1 | 2 = 2,
): number {
  const [nx, ny, nz] = dims;
  // Plane q holds voxels base(q) + a * stepA + b * stepB for a < na, b < nb.
  const [count, na, nb, stepQ, stepA, stepB] =
    axis === 2
      ? [nz, nx, ny, nx * ny, 1, nx]
      : axis === 1
        ? [ny, nx, nz, nx, 1, nx * ny]
        : [nx, ny, nz, 1, nx, nx * ny];
  const plane = na * nb;
  const holes = new Uint8Array(plane);
  const out = only ?? mask;
  let total = 0;
  for (let q = 0; q < count; q++) {
    const base = q * stepQ;
    for (let b = 0, h = 0; b < nb; b++) {
      const row = base + b * stepB;
      for (let a = 0; a < na; a++, h++) holes[h] = mask[row + a * stepA] === 0 ? 1 : 0;
    }
    const r = filterComponents(holes, [na, nb, 1], ({ touchesBorder }) =>
      touchesBorder.map((t) => (t ? 0 : 1)),
    );
    if (r.kept === 0) continue;
    total += r.keptVoxels;
    for (let b = 0, h = 0; b < nb; b++) {
      const row = base + b * stepB;
      for (let a = 0; a < na; a++, h++) if (holes[h]) out[row + a * stepA] = 1;
    }
  }
  return total;
}
