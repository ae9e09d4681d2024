// The whole local job as a user runs it, against a lean VTK script making the same surface.
//
// scan2mesh: `node dist/main/cli.cjs submit <series> --mesh skull --format stl --out DIR` in a child
// process, exactly the path of the command line and of the app's queue: process start-up, intake,
// packaging, starting the local engine, create/upload/notify through the service protocol on
// loopback, the engine (unpack, read, segment, extract, smooth, simplify, write), polling, download.
// Its stage breakdown comes from the --verbose log (timestamps of the job's state changes).
// Reference: bench/local-job-vtk.py with Debian's /usr/bin/python3 (pydicom read, vtkFlyingEdges3D
// at 300 HU, largest region, 5 windowed-sinc iterations, binary STL), also a whole process.
//
// Runs alternate (scan2mesh, VTK, scan2mesh, ...) on the same data; the best of each is compared.
// Goal (issue 14): scan2mesh / VTK <= 1.0, aim 0.5. Needs `npm run build` first (it runs dist/).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const cli = join(root, 'dist', 'main', 'cli.cjs');
const series = join(root, '..', 'shared', 'fixtures', 'dicom', 'ct-head-phantom-1mm');
const PYTHON = '/usr/bin/python3';
const RUNS = Number(process.argv[2] ?? 3);
const GOAL = 1.0;
const AIM = 0.5;

interface Run {
  wallMs: number;
  stagesMs: Record<string, number>;
  detail: Record<string, unknown>;
  load1: number;
}

function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ ms: number; out: string; err: string; t0: number }> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const start = performance.now();
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - start;
      if (code !== 0) reject(new Error(`${cmd} ${args.join(' ')} exited ${code}\n${out}\n${err}`));
      else resolve({ ms, out, err, t0 });
    });
  });
}

interface LogLine {
  /** The logger's timestamp ("time"; "t" in older builds). */
  time?: string;
  t?: string;
  msg: string;
  to?: string;
  ms?: number | Record<string, number>;
  [k: string]: unknown;
}

async function scan2mesh(): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'local-job-'));
  try {
    const env = { ...process.env, SCAN2MESH_DATA_DIR: join(dir, 'data') };
    const load1 = loadavg()[0]!;
    const r = await run(
      process.execPath,
      [cli, 'submit', series, '--mesh', 'skull', '--format', 'stl', '--out', join(dir, 'out'), '--verbose'],
      env,
    );
    const lines: LogLine[] = (r.out + '\n' + r.err)
      .split('\n')
      .filter((l) => l.startsWith('{') && l.includes('"msg":'))
      .map((l) => JSON.parse(l) as LogLine);
    const at = (pred: (l: LogLine) => boolean, what: string): number => {
      const l = lines.find(pred);
      if (!l) throw new Error(`no log line for ${what}; is dist/ built?`);
      return Date.parse(l.time ?? l.t ?? '') - r.t0;
    };
    const state = (to: string): number => at((l) => l.msg === 'state' && l.to === to, `state ${to}`);
    const intakeLine = lines.find((l) => l.msg === 'intake done');
    const intakeMs = typeof intakeLine?.ms === 'number' ? intakeLine.ms : 0;
    const intakeDone = at((l) => l.msg === 'intake done', 'intake');
    const preparing = state('preparing');
    const submitting = state('submitting');
    const processing = state('processing');
    const engineDone = at((l) => l.msg === 'engine job finished', 'engine finished');
    const volumeRead = at((l) => l.msg === 'segmentation: thresholds', 'thresholds');
    const downloading = state('downloading');
    const done = state('done');
    const mesh = lines.find((l) => l.msg === 'segmentation: mesh written');
    const read = lines.find((l) => l.msg === 'segmentation: thresholds');
    const out = join(dir, 'out', 'ct-head-phantom-1mm', 'skull.stl');
    return {
      wallMs: r.ms,
      load1,
      stagesMs: {
        'start-up': intakeDone - intakeMs,
        intake: intakeMs,
        'queue, engine start, sign-in': preparing - intakeDone,
        package: submitting - preparing,
        'create, upload, notify': processing - submitting,
        'engine: unpack, read volume': volumeRead - processing,
        'engine: segment .. write mesh': engineDone - volumeRead,
        'poll wait after engine done': downloading - engineDone,
        'download, save': done - downloading,
        exit: r.ms - done,
      },
      detail: {
        engineReadMs: read?.ms,
        engineStagesMs: mesh?.ms,
        triangles: mesh?.triangles,
        extracted: mesh?.extracted,
        bytes: existsSync(out) ? statSync(out).size : 0,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function vtkScript(): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'local-job-vtk-'));
  try {
    const load1 = loadavg()[0]!;
    const r = await run(
      PYTHON,
      [join(here, 'local-job-vtk.py'), series, join(dir, 'skull.stl')],
      process.env,
    );
    const res = JSON.parse(r.out.trim().split('\n').pop()!) as { stagesMs: Record<string, number> } & Record<
      string,
      unknown
    >;
    const inside = Object.values(res.stagesMs).reduce((a, b) => a + b, 0);
    return {
      wallMs: r.ms,
      load1,
      stagesMs: { 'interpreter start, exit': r.ms - inside, ...res.stagesMs },
      detail: { triangles: res.triangles, bytes: res.bytes, vtk: res.vtk, pydicom: res.pydicom },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function show(name: string, r: Run): void {
  console.log(
    `\n${name}: ${(r.wallMs / 1000).toFixed(2)} s whole process (load average ${r.load1.toFixed(2)} at start)`,
  );
  for (const [k, v] of Object.entries(r.stagesMs))
    console.log(`  ${k.padEnd(30)} ${String(Math.round(v)).padStart(6)} ms`);
  console.log(`  ${JSON.stringify(r.detail)}`);
}

async function main(): Promise<void> {
  if (!existsSync(cli)) throw new Error('dist/main/cli.cjs is missing: run `npm run build` first.');
  if (!existsSync(series)) throw new Error(`The fixture ${series} is missing.`);
  console.log(
    `local job, ct-head-phantom-1mm (140 slices, 512x512), skull STL; best of ${RUNS}, alternating`,
  );
  console.log(`goal (issue 14): scan2mesh / VTK <= ${GOAL} (aim ${AIM}), whole processes, start-up included`);
  const ours: Run[] = [];
  const ref: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    ours.push(await scan2mesh());
    ref.push(await vtkScript());
    console.log(
      `run ${i + 1}: scan2mesh ${(ours[i]!.wallMs / 1000).toFixed(2)} s, VTK ${(ref[i]!.wallMs / 1000).toFixed(2)} s (load ${loadavg()[0]!.toFixed(2)})`,
    );
  }
  const best = (rs: Run[]): Run => rs.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
  const a = best(ours);
  const b = best(ref);
  show('scan2mesh (best)', a);
  show('VTK script (best)', b);
  const ratio = a.wallMs / b.wallMs;
  const verdict = ratio <= AIM ? 'aim met' : ratio <= GOAL ? 'goal met' : 'goal NOT met';
  console.log(`\nratio scan2mesh / VTK: ${ratio.toFixed(2)} (goal <= ${GOAL}, aim ${AIM}): ${verdict}`);
  console.log(
    JSON.stringify({
      bench: 'local-job',
      scan2meshMs: Math.round(a.wallMs),
      vtkMs: Math.round(b.wallMs),
      ratio: Number(ratio.toFixed(3)),
      goal: GOAL,
      aim: AIM,
      met: ratio <= GOAL,
      scan2meshStagesMs: Object.fromEntries(Object.entries(a.stagesMs).map(([k, v]) => [k, Math.round(v)])),
      vtkStagesMs: Object.fromEntries(Object.entries(b.stagesMs).map(([k, v]) => [k, Math.round(v)])),
      runsMs: { scan2mesh: ours.map((r) => Math.round(r.wallMs)), vtk: ref.map((r) => Math.round(r.wallMs)) },
      loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
    }),
  );
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
