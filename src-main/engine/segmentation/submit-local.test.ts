import { describe, expect, it, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { readVolume } from '../../scans/volume-reader.js';
import { meshBounds } from './mesh-checks.js';
import { edgeReport } from './mesh-checks.test-support.js';

const SERIES = resolve('../shared/fixtures/dicom/ct-head-phantom-1mm');
const run = promisify(execFile);
let dir: string | undefined;

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Report {
  connection: string;
  jobs: { state: string; outputs: { path: string; bytes: number; note?: string }[]; error: unknown }[];
}

describe('scan2mesh submit with no connection options (the embedded local engine)', () => {
  it('writes a skull (all bone) mesh inside the scan extent, edge-manifold, and reports its triangle count', async () => {
    dir = await mkdtemp(join(tmpdir(), 'scan2mesh-submit-e2e-'));
    const out = join(dir, 'out');
    // The real command line, through the real protocol server on loopback; its own data folder.
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'src-main/cli/cli.ts', 'submit', SERIES, '--mesh', 'skull', '--out', out, '--json'],
      { env: { ...process.env, SCAN2MESH_DATA_DIR: join(dir, 'data') }, maxBuffer: 1 << 24 },
    );
    const report = JSON.parse(stdout) as Report;
    expect(report.connection).toBe('the local engine');
    expect(report.jobs).toHaveLength(1);
    const job = report.jobs[0]!;
    expect(job.state).toBe('done');
    const file = job.outputs[0]!;
    expect(file.path.endsWith('skull.stl')).toBe(true);
    const triangles = Number(/(\d+) triangles \(from/.exec(file.note ?? '')?.[1]);
    expect(triangles).toBeGreaterThan(20_000);

    const bytes = await readFile(file.path);
    expect(bytes.readUInt32LE(80)).toBe(triangles);
    expect(bytes.length).toBe(84 + 50 * triangles);
    const ids = new Map<string, number>();
    const pos: number[] = [];
    const indices = new Uint32Array(triangles * 3);
    for (let c = 0; c < triangles * 3; c++) {
      const o = 84 + Math.floor(c / 3) * 50 + 12 + (c % 3) * 12;
      const key = bytes.toString('latin1', o, o + 12);
      let id = ids.get(key);
      if (id === undefined) {
        ids.set(key, (id = ids.size));
        pos.push(bytes.readFloatLE(o), bytes.readFloatLE(o + 4), bytes.readFloatLE(o + 8));
      }
      indices[c] = id;
    }
    expect(edgeReport(indices, ids.size)).toMatchObject({
      boundaryEdges: 0,
      nonManifoldEdges: 0,
      inconsistentEdges: 0,
    });

    const files = (await readdir(SERIES)).map((f) => join(SERIES, f));
    const vol = await readVolume(files);
    // The extent below assumes the series' axes are the patient axes, as they are for this phantom.
    expect([vol.rowDir, vol.colDir, vol.sliceDir]).toEqual([
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ]);
    const b = meshBounds(Float32Array.from(pos));
    for (let k = 0; k < 3; k++) {
      expect(b.min[k]).toBeGreaterThanOrEqual(vol.origin[k]! - vol.spacing[k]! / 2);
      expect(b.max[k]).toBeLessThanOrEqual(vol.origin[k]! + (vol.dims[k]! - 0.5) * vol.spacing[k]!);
    }
    console.log(`submit → ${file.path}: ${triangles} triangles, ${file.bytes} bytes`);
    // About 10 s on an idle two-core machine; the margin is for a machine shared with other suites.
  }, 120_000);
});
