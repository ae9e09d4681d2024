import { madeMeshes } from './made-meshes.test-support.js';
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import yazl from 'yazl';
import { STRUCTURES } from '../../../src-shared/structures.js';
import { readVolume } from '../../scans/volume-reader.js';
import type { ProcessorResult } from '../processor.js';
import { createSegmentationProcessor, LOCAL_STRUCTURES } from './index.js';
import { meshBounds } from './mesh-checks.js';
import { piecesOf, readStl } from './stl.test-support.js';

/** A real human head CT in Hounsfield units, with the upper teeth in its lowest ~10 mm (MANIFEST.md). */
const SERIES = resolve('../shared/fixtures/dicom/ct-human-cranium-teeth');

let dir: string;
let files: string[];
let offered: string[];
let result: ProcessorResult;

const processor = createSegmentationProcessor({ workers: 2 });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-cranium-'));
  files = (await readdir(SERIES)).sort().map((f) => join(SERIES, f));
  const zipPath = join(dir, 'cranium.zip');
  const zip = new yazl.ZipFile();
  for (const f of files) zip.addFile(f, f.slice(SERIES.length + 1));
  zip.end();
  const out = createWriteStream(zipPath);
  zip.outputStream.pipe(out);
  await once(out, 'close');
  // What the engine offers, found as the app finds it: every catalogue name its validation accepts,
  // and the names it adds itself.
  const accepts = (name: string): boolean =>
    processor.validate({
      inputs: [{ name: 'cbct', extension: '.zip' }],
      meshes: [{ extension: '.stl', structures: [name] }],
    }) === null;
  offered = [...new Set([...STRUCTURES.map((s) => s.name).filter(accepts), ...LOCAL_STRUCTURES])];
  result = await processor.process(
    {
      jobId: 'cranium',
      inputs: [{ name: 'cbct', extension: '.zip', path: zipPath }],
      meshes: offered.map((s) => ({ extension: '.stl', structures: [s] })),
      options: {},
      workDir: join(dir, 'job'),
    },
    () => {},
    new AbortController().signal,
  );
}, 180_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the local engine on a real human head CT, every structure it offers', () => {
  it('offers one name per surface: skull, all_teeth, airway, soft_tissue', () => {
    expect([...offered].sort()).toEqual(['airway', 'all_teeth', 'skull', 'soft_tissue']);
  });

  it('gives no two structures the same surface (neither the same bytes nor the same vertices)', async () => {
    expect(madeMeshes(result)).toHaveLength(offered.length);
    const bytes = await Promise.all(madeMeshes(result).map((m) => readFile(m.path)));
    const vertexSets = await Promise.all(
      madeMeshes(result).map(async (m) => {
        const mesh = await readStl(m.path);
        const keys = new Set<string>();
        for (let v = 0; v < mesh.positions.length; v += 3)
          keys.add(`${mesh.positions[v]},${mesh.positions[v + 1]},${mesh.positions[v + 2]}`);
        return keys;
      }),
    );
    for (let a = 0; a < offered.length; a++)
      for (let b = a + 1; b < offered.length; b++) {
        const pair = `${offered[a]} / ${offered[b]}`;
        expect(bytes[a]!.equals(bytes[b]!), pair).toBe(false);
        const [x, y] = [vertexSets[a]!, vertexSets[b]!];
        const same = x.size === y.size && [...x].every((k) => y.has(k));
        expect(same, pair).toBe(false);
      }
  });

  it('puts all_teeth at the teeth (lowest 20 mm) and skull over the whole head', async () => {
    const vol = await readVolume(files);
    expect(vol.sliceDir).toEqual([0, 0, 1]);
    const z0 = vol.origin[2];
    const height = (vol.dims[2] - 1) * vol.spacing[2];
    const at = (name: string) => madeMeshes(result)[offered.indexOf(name)]!;

    const teeth = await readStl(at('all_teeth').path);
    let low = 0;
    for (let v = 2; v < teeth.positions.length; v += 3) if (teeth.positions[v]! - z0 <= 20) low++;
    const share = low / (teeth.positions.length / 3);
    expect(share).toBeGreaterThanOrEqual(0.95);
    expect(at('all_teeth').note).toMatch(/above 1770\.5 \(Hounsfield units/);

    const skull = meshBounds((await readStl(at('skull').path)).positions);
    expect(skull.max[2] - skull.min[2]).toBeGreaterThan(0.8 * height);
    console.log(
      `cranium: all_teeth ${(share * 100).toFixed(1)} % of vertices in the lowest 20 mm; ` +
        `skull spans ${(skull.max[2] - skull.min[2]).toFixed(1)} of ${height.toFixed(1)} mm`,
    );
  });

  it('says in each note how many separate surfaces its file holds', async () => {
    for (const m of madeMeshes(result)) {
      const said = Number(/; (\d+) separate surfaces? in the file\.$/.exec(m.note ?? '')?.[1]);
      expect(said, m.note).toBe(piecesOf(await readStl(m.path)));
    }
  });
});
