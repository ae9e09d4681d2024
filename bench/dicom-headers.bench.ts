// Header reading, as users meet it: scan2mesh's intake (the code path behind the drop and
// `scan2mesh inspect`) against pydicom's dcmread(stop_before_pixels=True), interleaved, same files.
//
// Goals (issue 14), printed with the figures:
// - cold in-process: the first drop of a session, header-scan worker start-up included, >= 10x
//   pydicom's header loop, on the 140-slice phantom and on a 1,000-file folder;
// - `scan2mesh inspect --json` of the phantom, whole process, <= 0.5x pydicom's whole process
//   (interpreter, import, headers, JSON out). Beside it, a diagnostic not in the ratio: how long a
//   Node process that does nothing takes to start, and, where the environment sets
//   NODE_EXTRA_CA_CERTS, how long without it (plain Node loads that file at every start; the
//   installed command never reads it, as its nodeOptions fuse is off).
// Cold runs use the intake bundled like dist/main (bench/dicom-headers-cold.ts, built here with
// esbuild and run in a fresh process each time). Warm in-process figures follow for comparison: the
// app's path again (this thread, plus workers when a drop is worth them), and `workers: false`.
// `inspect` needs `npm run build` first.
//
// Each cold round also runs a diagnostic: the same cold process with V8 compiling every function as
// the bundle loads (--no-lazy) rather than on first call, which shows how much of the cold figure is
// compilation. The app does not take that cost away with an on-disk code cache (what .pyc files are
// to pydicom). V8 accepts a cache only from its own version and flags. The packaged app runs this code
// in Electron's V8 (the command line too), so a cache made by Node at build time would be rejected
// there: it would speed up only this Node path, not the app's. And one written at run time would sit
// in a folder the user's account can write, outside the asar integrity check.
//
// What each side reads: pydicom's dcmread(stop_before_pixels=True) reads the preamble, the meta
// header and every data element up to the pixel data (values kept raw, converted when asked for: here
// one, the Series Instance UID). scan2mesh's intake reads the same bytes (its tag-only reader goes
// through every element up to the pixel data, walking it or comparing it, in stretches, with the same
// bytes of the series' file it walked last, and never reads pixels), and does more with them: it
// decodes about forty fields per file (or takes those a file shares byte for byte with that file),
// checks each file (frame counts, lengths, image or not) and groups, orders and checks the series.
// Both read from a warm page cache.
//
// The 1,000-file folder is made under bench/.out/dicom-1000/ (ignored by git) from the 140 phantom
// slices: copies 0..7 of every slice, each with its own SOP Instance UID, instance number and a z
// position shifted by 140 mm per copy, so the 1,000 files form one coherent series of 1,000 distinct
// slices (no hard links: identical files would be deduplicated and the page cache would flatter both).
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
import { build } from 'esbuild';
import { intake } from '../src-main/scans/intake.js';
import { patchElement, phantomFiles, sameLength } from '../src-main/scans/scans.test-support.js';
import dicomParser from 'dicom-parser';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const COUNT = 1000;
const RUNS = Number(process.argv[2] ?? 5);
const GOAL_IN_PROCESS = 10;
const GOAL_INSPECT = 0.5;
const folder = join(here, '.out', 'dicom-1000');
const phantom = join(root, '..', 'shared', 'fixtures', 'dicom', 'ct-head-phantom-1mm');
const coldDir = join(here, '.out', 'cold');
const cli = join(root, 'dist', 'main', 'cli.cjs');

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

// What `inspect --json` does, the pydicom way, as a whole process: headers of every file, grouped by
// series, one JSON document out.
const PYDICOM_INSPECT = String.raw`
import sys, os, json
import pydicom
d = sys.argv[1]
series = {}
for n in sorted(os.listdir(d)):
    ds = pydicom.dcmread(os.path.join(d, n), stop_before_pixels=True)
    s = series.setdefault(ds.SeriesInstanceUID, {'uid': ds.SeriesInstanceUID, 'description': str(ds.get('SeriesDescription', '')), 'slices': 0, 'rows': ds.Rows, 'columns': ds.Columns})
    s['slices'] += 1
print(json.dumps({'series': list(series.values())}))
`;

interface PyRun {
  ms: number;
  files: number;
  series: number;
  version: string;
  maxRssMB: number;
}

function pydicomPass(dir: string): PyRun {
  const py = spawnSync('/usr/bin/python3', ['-c', PYDICOM, dir], { encoding: 'utf8' });
  if (py.status !== 0) {
    console.error(`pydicom run failed (is pydicom installed for /usr/bin/python3?):\n${py.stderr}`);
    process.exit(1);
  }
  return JSON.parse(py.stdout.trim().split('\n').pop()!) as PyRun;
}

/** The intake bundled as the app ships it, with its header-scan worker beside it. */
async function buildCold(): Promise<string> {
  mkdirSync(coldDir, { recursive: true });
  const common = {
    bundle: true,
    platform: 'node' as const,
    target: 'node20',
    format: 'cjs' as const,
    logLevel: 'warning' as const,
    packages: 'external' as const,
    define: { 'import.meta.url': '__scan2meshImportMetaUrl', __BUNDLED__: 'true' },
    banner: { js: "const __scan2meshImportMetaUrl = require('url').pathToFileURL(__filename).href;" },
    outExtension: { '.js': '.cjs' },
    outdir: coldDir,
  };
  await build({
    ...common,
    entryPoints: {
      'intake-cold': join(here, 'dicom-headers-cold.ts'),
      'header-scan': join(root, 'src-main', 'scans', 'header-scan.entry.ts'),
    },
  });
  // Bare imports (dicom-parser, ...) resolve from the project's node_modules.
  return join(coldDir, 'intake-cold.cjs');
}

function coldPass(
  script: string,
  dir: string,
  expect: number,
  v8Flags: string[] = [],
): { ms: number; cpuMs: number } {
  const r = spawnSync(process.execPath, [...v8Flags, script, dir], { encoding: 'utf8', cwd: root });
  if (r.status !== 0) throw new Error(`cold intake failed:\n${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
    ms: number;
    cpuMs: number;
    series: number;
    slices: number;
  };
  if (out.series !== 1 || out.slices !== expect)
    throw new Error(`cold intake saw ${out.series} series, ${out.slices} slices`);
  return out;
}

/** Wall time of a Node process that does nothing: what every whole-process figure of ours starts with. */
function nodeStart(env: NodeJS.ProcessEnv): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, ['-e', '0'], { cwd: root, env });
  if (r.status !== 0) throw new Error('node -e 0 failed');
  return performance.now() - t;
}

function wholeProcess(cmd: string, args: string[]): number {
  const t = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', cwd: root, maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stderr}`);
  JSON.parse(r.stdout); // both print one JSON document
  return ms;
}

const median = (v: number[]): number => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const fmt = (v: number[]): string => v.map((x) => x.toFixed(0)).join(', ');
const load = (): string => loadavg()[0]!.toFixed(2);

async function main(): Promise<void> {
  const made = performance.now();
  makeFolder();
  console.log(
    `folder: ${folder} (${COUNT} slice files, made or reused in ${Math.round(performance.now() - made)} ms)`,
  );
  console.log(
    `goals (issue 14): cold in-process >= ${GOAL_IN_PROCESS}x pydicom on 140 and on ${COUNT} files; inspect --json <= ${GOAL_INSPECT}x pydicom whole process`,
  );
  const script = await buildCold();
  const sets = [
    { name: 'phantom-140', dir: phantom, files: 140 },
    { name: `folder-${COUNT}`, dir: folder, files: COUNT },
  ];
  const results: Record<string, unknown> = {};
  let allMet = true;
  for (const set of sets) {
    const cold: number[] = [];
    const coldCpu: number[] = [];
    const eager: number[] = [];
    const py: number[] = [];
    const loads: string[] = [];
    // Round 0 warms the page cache for both and is not counted; then they alternate.
    for (let r = 0; r <= RUNS; r++) {
      const c = coldPass(script, set.dir, set.files);
      // The diagnostic (see the header): not the app's path, and not in the ratio.
      const e = coldPass(script, set.dir, set.files, ['--no-lazy']);
      const p = pydicomPass(set.dir);
      if (p.files !== set.files || p.series !== 1) throw new Error('pydicom saw something else');
      if (r > 0) {
        cold.push(c.ms);
        coldCpu.push(c.cpuMs);
        eager.push(e.ms);
        py.push(p.ms);
        loads.push(load());
      }
    }
    // Warm, in this process: later drops of the same session (pool running), and one thread.
    const work = mkdtempSync(join(tmpdir(), 's2m-bench-'));
    const warm: number[] = [];
    const one: number[] = [];
    for (let r = 0; r <= RUNS; r++) {
      globalThis.gc?.();
      let t = performance.now();
      await intake([set.dir], { tempDir: work });
      if (r > 0) warm.push(performance.now() - t);
      t = performance.now();
      await intake([set.dir], { tempDir: work, workers: false });
      if (r > 0) one.push(performance.now() - t);
    }
    rmSync(work, { recursive: true, force: true });
    const ratio = median(py) / median(cold);
    const met = ratio >= GOAL_IN_PROCESS;
    allMet &&= met;
    console.log(`\n${set.name} (${set.files} files), load average ${loads.join(', ')}`);
    console.log(
      `  scan2mesh cold (fresh process, worker start-up included): median ${median(cold).toFixed(0)} ms [${fmt(cold)}]; CPU time, all threads: median ${median(coldCpu).toFixed(0)} ms`,
    );
    // A difference of two medians of noisy runs: at or under zero it is noise, not a gain.
    const compileMs = median(cold) - median(eager);
    console.log(
      `  diagnostic, code compiled as it loads (V8 --no-lazy):      median ${median(eager).toFixed(0)} ms [${fmt(eager)}]: ${compileMs >= 0.5 ? `compiling on first use costs the cold run about ${compileMs.toFixed(0)} ms` : 'no measurable cost from compiling on first use'}`,
    );
    console.log(
      `  pydicom dcmread(stop_before_pixels=True) loop:             median ${median(py).toFixed(0)} ms [${fmt(py)}]`,
    );
    console.log(
      `  scan2mesh warm, the app's path: median ${median(warm).toFixed(0)} ms [${fmt(warm)}]; workers: false: median ${median(one).toFixed(0)} ms [${fmt(one)}]`,
    );
    console.log(
      `  ratio pydicom / scan2mesh cold: ${ratio.toFixed(2)}x (goal >= ${GOAL_IN_PROCESS}x): ${met ? 'met' : 'NOT met'}; warm ${(median(py) / median(warm)).toFixed(1)}x, workers: false ${(median(py) / median(one)).toFixed(1)}x`,
    );
    results[set.name] = {
      coldMs: Math.round(median(cold)),
      coldCpuMs: Math.round(median(coldCpu)),
      coldCompiledAtLoadMs: Math.round(median(eager)),
      pydicomMs: Math.round(median(py)),
      ratio: Number(ratio.toFixed(2)),
      met,
      warmMs: Math.round(median(warm)),
      warmNoWorkersMs: Math.round(median(one)),
    };
  }

  let inspect: Record<string, unknown> = { skipped: 'dist/main/cli.cjs missing: run npm run build' };
  if (existsSync(cli)) {
    const ours: number[] = [];
    const theirs: number[] = [];
    const bare: number[] = [];
    const bareNoExtra: number[] = [];
    // A diagnostic, not in the ratio: this environment may name a certificate file in
    // NODE_EXTRA_CA_CERTS, which every plain Node process loads before it runs any code.
    const extraCa = process.env.NODE_EXTRA_CA_CERTS;
    const { NODE_EXTRA_CA_CERTS: _dropped, ...withoutExtraCa } = process.env;
    for (let r = 0; r <= RUNS; r++) {
      const a = wholeProcess(process.execPath, [cli, 'inspect', '--json', phantom]);
      const b = wholeProcess('/usr/bin/python3', ['-c', PYDICOM_INSPECT, phantom]);
      const c = nodeStart(process.env);
      const d = extraCa ? nodeStart(withoutExtraCa) : c;
      if (r > 0) {
        ours.push(a);
        theirs.push(b);
        bare.push(c);
        bareNoExtra.push(d);
      }
    }
    const ratio = median(ours) / median(theirs);
    const met = ratio <= GOAL_INSPECT;
    allMet &&= met;
    console.log(`\ninspect --json of the phantom, whole process (load average ${load()}):`);
    console.log(`  scan2mesh inspect --json: median ${median(ours).toFixed(0)} ms [${fmt(ours)}]`);
    console.log(`  pydicom script:           median ${median(theirs).toFixed(0)} ms [${fmt(theirs)}]`);
    console.log(
      `  of ours, Node starting (node -e 0): median ${median(bare).toFixed(0)} ms [${fmt(bare)}]${extraCa ? `; ${median(bareNoExtra).toFixed(0)} ms without NODE_EXTRA_CA_CERTS, which this environment sets (${extraCa}): plain Node loads that file at every start, the installed command does not read it (its nodeOptions fuse is off)` : ''}`,
    );
    console.log(
      `  ratio scan2mesh / pydicom: ${ratio.toFixed(2)} (goal <= ${GOAL_INSPECT}): ${met ? 'met' : 'NOT met'}`,
    );
    inspect = {
      scan2meshMs: Math.round(median(ours)),
      pydicomMs: Math.round(median(theirs)),
      nodeStartMs: Math.round(median(bare)),
      ...(extraCa ? { nodeStartWithoutExtraCaCertsMs: Math.round(median(bareNoExtra)) } : {}),
      ratio: Number(ratio.toFixed(3)),
      met,
    };
  } else {
    allMet = false;
    console.log('\ninspect --json: skipped (dist/main/cli.cjs is missing: run `npm run build`)');
  }
  console.log(
    JSON.stringify({
      bench: 'dicom-headers',
      goals: { coldInProcessRatioMin: GOAL_IN_PROCESS, inspectRatioMax: GOAL_INSPECT },
      ...results,
      inspect,
      met: allMet,
      loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
    }),
  );
}

await main();
