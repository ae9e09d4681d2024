// Header scan of a 1,000-slice folder: scan2mesh's intake (the code path behind the drop and
// `scan2mesh inspect`) against pydicom's dcmread(stop_before_pixels=True), in the same run.
//
// The folder is made once under bench/.out/dicom-1000/ from the 140 phantom slices: copies 0..7
// of every slice, each with its own SOP Instance UID, instance number and a z position shifted by
// 140 mm per copy, so the 1,000 files form one coherent series of 1,000 distinct slices (no hard
// links: identical files would be deduplicated and the page cache would flatter both tools).
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { intake } from '../src-main/scans/intake.js';
import { patchElement, phantomFiles, sameLength } from '../src-main/scans/test-support.js';
import dicomParser from 'dicom-parser';

const here = dirname(fileURLToPath(import.meta.url));
const COUNT = 1000;
const RUNS = 7;
const folder = join(here, '.out', 'dicom-1000');

function makeFolder(): void {
  if (existsSync(folder) && readdirSync(folder).length === COUNT) return;
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const sources = phantomFiles().map((f) => readFileSync(f));
  let n = 0;
  for (let copy = 0; n < COUNT; copy++) {
    for (const src of sources) {
      if (n >= COUNT) break;
      const bytes = Buffer.from(src);
      const ds = dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' });
      const uid = ds.string('x00080018')!;
      const newUid = `${uid.slice(0, uid.length - 6)}${String(n).padStart(6, '0')}`;
      patchElement(bytes, 'x00080018', sameLength(bytes, 'x00080018', newUid).fill(0, newUid.length));
      patchElement(bytes, 'x00020003', sameLength(bytes, 'x00020003', newUid).fill(0, newUid.length));
      const pos = ds.string('x00200032')!.split('\\').map(Number);
      const z = (pos[2]! + copy * 140).toFixed(2);
      patchElement(bytes, 'x00200032', sameLength(bytes, 'x00200032', `${pos[0]}\\${pos[1]}\\${z}`));
      const instance = ds.string('x00200013') ?? '';
      if (instance) patchElement(bytes, 'x00200013', sameLength(bytes, 'x00200013', String((n % 99) + 1)));
      writeFileSync(join(folder, `IM${String(n).padStart(5, '0')}`), bytes);
      n++;
    }
  }
}

// One timed pass per Python process (imports excluded from the time); the page cache is warm.
const PYDICOM = String.raw`
import sys, os, time, json, resource
import pydicom
d = sys.argv[1]
names = sorted(os.listdir(d))
t = time.perf_counter()
series = set()
for n in names:
    ds = pydicom.dcmread(os.path.join(d, n), stop_before_pixels=True)
    series.add(ds.SeriesInstanceUID)
ms = (time.perf_counter() - t) * 1000
print(json.dumps({'ms': ms, 'files': len(names), 'series': len(series), 'version': pydicom.__version__,
  'maxRssMB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
`;

interface PyRun {
  ms: number;
  files: number;
  series: number;
  version: string;
  maxRssMB: number;
}

function pydicomPass(): PyRun {
  const py = spawnSync('/usr/bin/python3', ['-c', PYDICOM, folder], { encoding: 'utf8' });
  if (py.status !== 0) {
    console.error(`pydicom run failed (is pydicom installed for /usr/bin/python3?):\n${py.stderr}`);
    process.exit(1);
  }
  return JSON.parse(py.stdout.trim().split('\n').pop()!) as PyRun;
}

const median = (v: number[]): number => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;

async function main(): Promise<void> {
  const made = performance.now();
  makeFolder();
  console.log(
    `folder: ${folder} (${COUNT} slice files, made or reused in ${Math.round(performance.now() - made)} ms)`,
  );

  // Rounds alternate scan2mesh and pydicom so that both meet the same machine load (other work
  // shares the cores); round 0 warms the page cache and the JIT and is not counted.
  const work = mkdtempSync(join(tmpdir(), 's2m-bench-'));
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 2);
  const ours: number[] = [];
  const oneThread: number[] = [];
  const theirs: number[] = [];
  let slices = 0;
  let ref: PyRun | undefined;
  for (let r = 0; r <= RUNS; r++) {
    globalThis.gc?.();
    const t = performance.now();
    const outcome = await intake([folder], { tempDir: work });
    const ms = performance.now() - t;
    slices = outcome.result.series[0]?.slices ?? 0;
    if (outcome.result.series.length !== 1 || slices !== COUNT)
      throw new Error(`expected one series of ${COUNT} slices`);
    // The same intake with every header read on the calling thread, for comparison.
    const t1 = performance.now();
    await intake([folder], { tempDir: work, workers: false });
    const ms1 = performance.now() - t1;
    ref = pydicomPass();
    if (ref.series !== 1 || ref.files !== COUNT) throw new Error('pydicom saw something else');
    if (r > 0) {
      ours.push(ms);
      oneThread.push(ms1);
      theirs.push(ref.ms);
    }
  }
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  rmSync(work, { recursive: true, force: true });
  if (!ref) throw new Error('no pydicom run');

  const oursMs = median(ours);
  const pyMs = median(theirs);
  const ratio = pyMs / oursMs;
  console.log(
    `scan2mesh intake (headers, grouping, checks): median ${oursMs.toFixed(0)} ms of ${RUNS} runs [${ours.map((v) => v.toFixed(0)).join(', ')}], ${slices} slices in 1 series`,
  );
  console.log(
    `scan2mesh intake on one thread (no worker threads): median ${median(oneThread).toFixed(0)} ms [${oneThread.map((v) => v.toFixed(0)).join(', ')}], ${(pyMs / median(oneThread)).toFixed(1)}x faster than pydicom`,
  );
  console.log(
    `pydicom ${ref.version} dcmread(stop_before_pixels=True): median ${pyMs.toFixed(0)} ms of ${RUNS} runs [${theirs.map((v) => v.toFixed(0)).join(', ')}], ${ref.files} files, ${ref.series} series`,
  );
  console.log(
    `ratio: scan2mesh is ${ratio.toFixed(1)}x faster by medians, ${(Math.min(...theirs) / Math.min(...ours)).toFixed(1)}x by best runs (goal: 5x)`,
  );
  console.log(
    `peak memory: scan2mesh process RSS ${(peakRss / 1e6).toFixed(0)} MB (${((peakRss - rssBefore) / 1e6).toFixed(0)} MB above its start), pydicom process max RSS ${ref.maxRssMB.toFixed(0)} MB`,
  );
  console.log(
    JSON.stringify({
      bench: 'dicom-headers',
      files: COUNT,
      scan2meshMs: Math.round(oursMs),
      pydicomMs: Math.round(pyMs),
      ratio: Number(ratio.toFixed(2)),
      scan2meshOneThreadMs: Math.round(median(oneThread)),
      ratioOneThread: Number((pyMs / median(oneThread)).toFixed(2)),
      loadAverage1m: Number(loadavg()[0]!.toFixed(1)),
      ratioOfBest: Number((Math.min(...theirs) / Math.min(...ours)).toFixed(2)),
      scan2meshPeakRssMB: Math.round(peakRss / 1e6),
      scan2meshRssGrowthMB: Math.round((peakRss - rssBefore) / 1e6),
      pydicomMaxRssMB: Math.round(ref.maxRssMB),
    }),
  );
}

await main();
