/**
 * Iso-surface extraction: scan2mesh's marching cubes against scikit-image's marching_cubes (the goal:
 * no slower) and VTK's vtkFlyingEdges3D (the speed to aim for), on the same volume at the same iso
 * value, in the same run. Every tool runs RUNS times; the best and the first (cold) run are printed.
 *
 * The headline is the path a job runs (mesh-surface.ts): the bone region as segmentation hands it
 * over (its runs), surfaces closed where bone meets the edge of the scan, and the worker threads
 * started inside the timed span, a fresh pool for every run. The anchors time their extraction
 * call only (their imports are left out), so the headline is the stricter side. For comparison,
 * the extraction alone follows: the whole volume above the iso value, open borders, a pool started
 * before the clock, on 2 threads and on 1.
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
import type { InsideRuns } from '../src-main/engine/segmentation/components.js';
import {
  createSlabPool,
  extractIsoSurface,
  extractIsoSurfaceVoxels,
  toShared,
  type SlabPool,
} from '../src-main/engine/segmentation/iso-surface.js';
import { deriveThresholds, segmentTissue } from '../src-main/engine/segmentation/tissue.js';

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

interface Path {
  workers: number;
  closeBorders: boolean;
  /** The job's path: the pool started inside the timed span, the inside given as the region's runs. */
  job?: { runs: InsideRuns };
}

async function ours(vol: Volume, iso: number, path: Path): Promise<Timing> {
  // The extraction alone: thread start-up is set-up, like the anchors' imports, and not timed.
  let pool: SlabPool | undefined = path.job ? undefined : await createSlabPool(path.workers);
  await pool?.ready();
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
      let mesh;
      if (path.job) {
        pool = await createSlabPool(path.workers);
        mesh = await extractIsoSurfaceVoxels(vol, iso, {
          pool,
          runs: path.job.runs,
          polarity: 'above',
          closeBorders: path.closeBorders,
        });
      } else {
        mesh = await extractIsoSurface(vol, iso, { pool, closeBorders: path.closeBorders });
      }
      times.push((performance.now() - t0) / 1000);
      const c = process.cpuUsage(c0);
      cpus.push((c.user + c.system) / 1e6);
      if (path.job) {
        await pool?.close();
        pool = undefined;
      }
      triangles = mesh.indices.length / 3;
      peak = Math.max(peak, process.memoryUsage().rss);
      outputMiB = (mesh.positions.byteLength + mesh.indices.byteLength) / 2 ** 20;
      // Later runs would also count meshes the worker threads have not garbage-collected yet: the
      // peak is that of the first extraction, with a fresh pool.
      if (r === 0) firstPeak = peak;
    }
  } finally {
    clearInterval(sample);
    await pool?.close();
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
  // The region as segmentation hands it to the extraction (its mask stays, as in a job).
  const thresholds = deriveThresholds(vol.data);
  const region = segmentTissue(
    vol,
    'bone',
    { ...thresholds, bone: iso },
    new Uint8Array(new SharedArrayBuffer(vol.data.length)),
  );
  if (!region.runs) throw new Error('bone segmentation gave no runs');
  (globalThis as { gc?: () => void }).gc?.();
  const rssBase = process.memoryUsage().rss / 2 ** 20;

  const job = await ours(vol, iso, { workers: 2, closeBorders: true, job: { runs: region.runs } });
  const s2m2 = await ours(vol, iso, { workers: 2, closeBorders: false });
  const s2m1 = await ours(vol, iso, { workers: 1, closeBorders: false });
  const sk = await anchor('skimage', npy, iso);
  const vtk = await anchor('vtk', npy, iso);

  const line = (name: string, t: Timing, note = ''): void =>
    console.log(
      `${name.padEnd(36)} best ${fmt(best(t)).padStart(8)}  first ${fmt(t.times[0] ?? NaN).padStart(8)}  cpu ${fmt(bestCpu(t)).padStart(8)}  ${String(t.triangles).padStart(9)} triangles  peak RSS ${t.peakRssMiB?.toFixed(0)} MiB ${note}`,
    );
  line('scan2mesh, the job path (2 threads)', job, '(pool start timed, bone region, closed borders)');
  line('scan2mesh, extraction alone, 2 threads', s2m2, '(pool started before, whole volume, open)');
  line('scan2mesh, extraction alone, 1 thread', s2m1);
  line(`scikit-image ${sk.version} marching_cubes`, sk, '(1 thread)');
  line(`VTK ${vtk.version} vtkFlyingEdges3D`, vtk, `(${vtk.smp})`);
  const vsSk = best(sk) / best(job);
  const vsVtk = best(vtk) / best(job);
  console.log(
    `scan2mesh's job path is ${vsSk.toFixed(2)}x the speed of scikit-image (goal >= 1: ${vsSk >= 1 ? 'met' : 'NOT met'}) and ${vsVtk.toFixed(2)}x the speed of VTK flying edges (aim 1); the extraction alone: ${(best(sk) / best(s2m2)).toFixed(2)}x and ${(best(vtk) / best(s2m2)).toFixed(2)}x (2 threads), ${(best(sk) / best(s2m1)).toFixed(2)}x scikit-image on 1 thread`,
  );
  console.log(
    `CPU time (all threads), steadier on a shared machine: scikit-image / scan2mesh job path ${(bestCpu(sk) / bestCpu(job)).toFixed(2)}x, VTK / scan2mesh job path ${(bestCpu(vtk) / bestCpu(job)).toFixed(2)}x`,
  );
  console.log(
    `scan2mesh memory: RSS ${rssBase.toFixed(0)} MiB with the volume loaded, peak ${job.peakRssMiB?.toFixed(0)} MiB during one extraction on the job path (+${((job.peakRssMiB ?? 0) - rssBase).toFixed(0)} MiB, of which the mesh itself is ${job.outputMiB?.toFixed(0)} MiB)`,
  );
  console.log(
    JSON.stringify({
      bench: 'isosurface',
      dims: vol.dims,
      iso,
      runs,
      scan2mesh: {
        path: 'job: pool start timed, bone region runs, closed borders',
        bestMs: best(job) * 1000,
        firstMs: (job.times[0] ?? NaN) * 1000,
        triangles: job.triangles,
        workers: 2,
        peakRssMiB: job.peakRssMiB,
        baseRssMiB: rssBase,
        meshMiB: job.outputMiB,
      },
      scan2meshExtractionAlone: { bestMs: best(s2m2) * 1000, triangles: s2m2.triangles, workers: 2 },
      scan2mesh1Thread: { bestMs: best(s2m1) * 1000, triangles: s2m1.triangles },
      skimage: anchorFigures(sk),
      vtkFlyingEdges: { ...anchorFigures(vtk), smp: vtk.smp },
      speedVsSkimage: vsSk,
      goalVsSkimage: 1,
      met: vsSk >= 1,
      speedVsVtk: vsVtk,
      cpuMs: {
        scan2mesh: bestCpu(job) * 1000,
        scan2meshExtractionAlone: bestCpu(s2m2) * 1000,
        scan2mesh1Thread: bestCpu(s2m1) * 1000,
        skimage: bestCpu(sk) * 1000,
        vtkFlyingEdges: bestCpu(vtk) * 1000,
      },
    }),
  );
}

await main();
