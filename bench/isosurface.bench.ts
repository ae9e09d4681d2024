/**
 * Iso-surface extraction: scan2mesh's marching cubes against scikit-image's marching_cubes (the goal:
 * no slower) and VTK's vtkFlyingEdges3D (the speed to aim for), on the same volume at the same iso
 * value, in the same run. Only the extraction is timed in each; every tool runs RUNS times and the
 * best and the first (cold) run are printed.
 *
 *   npm run bench -- isosurface            # the phantom CT resampled to 512 x 512 x 400 slices
 *   npm run bench -- isosurface --native   # the phantom CT as it is (512 x 512 x 140)
 *   npm run bench -- isosurface --iso 300.5 --runs 5
 *
 * The volume goes to the Python anchors as a .npy file under bench/.out/ (Debian's python3-skimage
 * and python3-vtk9 through /usr/bin/python3). The iso value defaults to the bone threshold the engine
 * derives from the histogram, so the surface is the one a user gets.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readVolume } from '../src-main/scans/volume-reader.js';
import type { Volume } from '../src-main/scans/volume.js';
import { createSlabPool, extractIsoSurface, toShared } from '../src-main/engine/segmentation/iso-surface.js';
import { deriveThresholds } from '../src-main/engine/segmentation/tissue.js';

const here = dirname(fileURLToPath(import.meta.url));
const OUT = join(here, '.out');
const SERIES = join(here, '..', '..', 'shared', 'fixtures', 'dicom', 'ct-head-phantom-1mm');
const PYTHON = '/usr/bin/python3';
const TARGET_SLICES = 400;

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const native = args.includes('--native');
const runs = Number(flag('--runs') ?? 3);

/** Linear interpolation between slices up to `slices` slices: the same head, a finer slice spacing. */
function resampleSlices(v: Volume, slices: number): Volume {
  const [nx, ny, nz] = v.dims;
  const plane = nx * ny;
  const out = new Int16Array(new SharedArrayBuffer(plane * slices * 2));
  const src = v.data;
  for (let k = 0; k < slices; k++) {
    const z = (k * (nz - 1)) / (slices - 1);
    const k0 = Math.min(nz - 2, Math.floor(z));
    const f = z - k0;
    const a = k0 * plane;
    const b = a + plane;
    const o = k * plane;
    for (let i = 0; i < plane; i++)
      out[o + i] = Math.round((src[a + i] as number) * (1 - f) + (src[b + i] as number) * f);
  }
  return {
    ...v,
    data: out,
    dims: [nx, ny, slices],
    spacing: [v.spacing[0], v.spacing[1], (v.spacing[2] * (nz - 1)) / (slices - 1)],
  };
}

/** numpy .npy v1.0: int16 little-endian, C order, shape (slices, rows, columns) = the volume's own layout. */
async function writeNpy(path: string, v: Volume): Promise<void> {
  const [nx, ny, nz] = v.dims;
  let header = `{'descr': '<i2', 'fortran_order': False, 'shape': (${nz}, ${ny}, ${nx}), }`;
  const total = 10 + header.length + 1;
  header = header.padEnd(header.length + ((64 - (total % 64)) % 64), ' ') + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const fh = await open(path, 'w');
  try {
    await fh.write(pre);
    await fh.write(Buffer.from(header, 'latin1'));
    const d = v.data as Int16Array;
    await fh.write(new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
  } finally {
    await fh.close();
  }
}

const ANCHOR_PY = String.raw`
import json, resource, sys, time
import numpy as np
tool, path, iso, runs = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
vol = np.load(path)
times, cpus, tris, extra = [], [], 0, {}
if tool == 'skimage':
    import skimage
    from skimage.measure import marching_cubes
    extra['version'] = skimage.__version__
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        verts, faces, _n, _v = marching_cubes(vol, level=iso)
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        tris = len(faces)
        del verts, faces, _n, _v
else:
    from vtkmodules.vtkCommonCore import vtkSMPTools, vtkVersion
    from vtkmodules.vtkCommonDataModel import vtkImageData
    from vtkmodules.vtkFiltersCore import vtkFlyingEdges3D
    from vtkmodules.util.numpy_support import numpy_to_vtk
    extra['version'] = vtkVersion.GetVTKVersion()
    extra['smp'] = '%s x %d' % (vtkSMPTools.GetBackend(), vtkSMPTools.GetEstimatedNumberOfThreads())
    img = vtkImageData()
    img.SetDimensions(vol.shape[2], vol.shape[1], vol.shape[0])
    img.GetPointData().SetScalars(numpy_to_vtk(vol.ravel(), deep=False))
    for _ in range(runs):
        fe = vtkFlyingEdges3D()
        fe.SetInputData(img)
        fe.SetValue(0, iso)
        fe.ComputeNormalsOff()
        fe.ComputeGradientsOff()
        fe.ComputeScalarsOff()
        t0, c0 = time.perf_counter(), time.process_time()
        fe.Update()
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        tris = fe.GetOutput().GetNumberOfPolys()
        del fe
print(json.dumps({'times': times, 'cpus': cpus, 'triangles': tris, 'peakRssMiB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, **extra}))
`;

interface Timing {
  times: number[];
  /** CPU seconds of the whole process (all its threads) per run: steadier than wall time on a busy machine. */
  cpus: number[];
  triangles: number;
  peakRssMiB?: number;
  version?: string;
  smp?: string;
  outputMiB?: number;
}

/** What the report keeps of a reference tool's run. */
function anchorFigures(t: Timing): Record<string, number | string | undefined> {
  return {
    bestMs: best(t) * 1000,
    firstMs: (t.times[0] ?? NaN) * 1000,
    triangles: t.triangles,
    peakRssMiB: t.peakRssMiB,
    version: t.version,
  };
}

async function anchor(tool: 'skimage' | 'vtk', npy: string, iso: number): Promise<Timing> {
  const script = join(OUT, 'isosurface-anchor.py');
  await writeFile(script, ANCHOR_PY);
  const { stdout } = await promisify(execFile)(PYTHON, [script, tool, npy, String(iso), String(runs)], {
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Timing;
}

async function ours(vol: Volume, iso: number, workers: number, closeBorders: boolean): Promise<Timing> {
  // Thread start-up is set-up, like the anchors' imports: not timed.
  const pool = await createSlabPool(workers);
  await pool.ready();
  const times: number[] = [];
  const cpus: number[] = [];
  let triangles = 0;
  let peak = 0;
  let outputMiB = 0;
  let firstPeak = 0;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
  try {
    for (let r = 0; r < runs; r++) {
      // The previous run's mesh is garbage by now: collect it, so the peak is this run's own.
      (globalThis as { gc?: () => void }).gc?.();
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const mesh = await extractIsoSurface(vol, iso, { pool, closeBorders });
      times.push((performance.now() - t0) / 1000);
      const c = process.cpuUsage(c0);
      cpus.push((c.user + c.system) / 1e6);
      triangles = mesh.indices.length / 3;
      peak = Math.max(peak, process.memoryUsage().rss);
      outputMiB = (mesh.positions.byteLength + mesh.indices.byteLength) / 2 ** 20;
      // Later runs would also count meshes the worker threads have not garbage-collected yet: the
      // peak is that of the first extraction, with a fresh pool.
      if (r === 0) firstPeak = peak;
    }
  } finally {
    clearInterval(sample);
    await pool.close();
  }
  return { times, cpus, triangles, peakRssMiB: firstPeak / 2 ** 20, outputMiB };
}

const best = (t: Timing): number => Math.min(...t.times);
const bestCpu = (t: Timing): number => Math.min(...t.cpus);
const fmt = (s: number): string => `${(s * 1000).toFixed(0)} ms`;

async function main(): Promise<void> {
  await mkdir(OUT, { recursive: true });
  const files = (await readdir(SERIES)).map((f) => join(SERIES, f));
  const read = await readVolume(files);
  let vol: Volume = { ...read, data: toShared(read.data) };
  if (!native) vol = resampleSlices(vol, TARGET_SLICES);
  const iso = flag('--iso') !== undefined ? Number(flag('--iso')) : deriveThresholds(vol.data).bone;
  const [nx, ny, nz] = vol.dims;
  console.log(
    `volume: ${nx} x ${ny} x ${nz} int16 (${((nx * ny * nz * 2) / 2 ** 20).toFixed(0)} MiB), ${native ? 'the phantom CT as it is' : `the phantom CT resampled from 140 to ${nz} slices (linear)`}; iso ${iso} (${flag('--iso') ? 'given' : 'bone threshold from the histogram'}); ${runs} runs each`,
  );
  const npy = join(OUT, 'isosurface-volume.npy');
  await writeNpy(npy, vol);
  (globalThis as { gc?: () => void }).gc?.();
  const rssBase = process.memoryUsage().rss / 2 ** 20;

  const s2m2 = await ours(vol, iso, 2, false);
  const s2m1 = await ours(vol, iso, 1, false);
  const closed = await ours(vol, iso, 2, true);
  const sk = await anchor('skimage', npy, iso);
  const vtk = await anchor('vtk', npy, iso);

  const line = (name: string, t: Timing, note = ''): void =>
    console.log(
      `${name.padEnd(36)} best ${fmt(best(t)).padStart(8)}  first ${fmt(t.times[0] ?? NaN).padStart(8)}  cpu ${fmt(bestCpu(t)).padStart(8)}  ${String(t.triangles).padStart(9)} triangles  peak RSS ${t.peakRssMiB?.toFixed(0)} MiB ${note}`,
    );
  line('scan2mesh, 2 worker threads', s2m2);
  line('scan2mesh, 1 worker thread', s2m1);
  line(
    'scan2mesh, 2 threads, closed borders',
    closed,
    '(the engine default: caps where bone meets the edge)',
  );
  line(`scikit-image ${sk.version} marching_cubes`, sk, '(1 thread)');
  line(`VTK ${vtk.version} vtkFlyingEdges3D`, vtk, `(${vtk.smp})`);
  const vsSk = best(sk) / best(s2m2);
  const vsVtk = best(vtk) / best(s2m2);
  console.log(
    `scan2mesh (2 threads) is ${vsSk.toFixed(2)}x the speed of scikit-image (goal >= 1) and ${vsVtk.toFixed(2)}x the speed of VTK flying edges (aim 1); 1 thread vs scikit-image: ${(best(sk) / best(s2m1)).toFixed(2)}x`,
  );
  console.log(
    `CPU time (all threads), steadier on a shared machine: scikit-image / scan2mesh ${(bestCpu(sk) / bestCpu(s2m2)).toFixed(2)}x, VTK / scan2mesh ${(bestCpu(vtk) / bestCpu(s2m2)).toFixed(2)}x`,
  );
  console.log(
    `scan2mesh memory: RSS ${rssBase.toFixed(0)} MiB with the volume loaded, peak ${s2m2.peakRssMiB?.toFixed(0)} MiB during one extraction (+${((s2m2.peakRssMiB ?? 0) - rssBase).toFixed(0)} MiB, of which the mesh itself is ${s2m2.outputMiB?.toFixed(0)} MiB)`,
  );
  console.log(
    JSON.stringify({
      bench: 'isosurface',
      dims: vol.dims,
      iso,
      runs,
      scan2mesh: {
        bestMs: best(s2m2) * 1000,
        firstMs: (s2m2.times[0] ?? NaN) * 1000,
        triangles: s2m2.triangles,
        workers: 2,
        peakRssMiB: s2m2.peakRssMiB,
        baseRssMiB: rssBase,
        meshMiB: s2m2.outputMiB,
      },
      scan2mesh1Thread: { bestMs: best(s2m1) * 1000, triangles: s2m1.triangles },
      scan2meshClosed: { bestMs: best(closed) * 1000, triangles: closed.triangles },
      skimage: anchorFigures(sk),
      vtkFlyingEdges: { ...anchorFigures(vtk), smp: vtk.smp },
      speedVsSkimage: vsSk,
      speedVsVtk: vsVtk,
      cpuMs: {
        scan2mesh: bestCpu(s2m2) * 1000,
        scan2mesh1Thread: bestCpu(s2m1) * 1000,
        skimage: bestCpu(sk) * 1000,
        vtkFlyingEdges: bestCpu(vtk) * 1000,
      },
    }),
  );
}

await main();
