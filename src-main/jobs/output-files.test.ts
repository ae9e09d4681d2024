import { link, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { AppError } from '../../src-shared/errors.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkNamingTemplate, outputPath } from '../settings/output-naming.js';
import { FIXTURES } from './jobs.test-support.js';
import {
  adoptPlaced,
  checkMeshFile,
  placeStaged,
  removePartials,
  stagingPath,
  statOrNull,
} from './output-place.js';

const values = {
  scan: 'Doe^Jane / 1970',
  series: 'CBCT: 0.3 mm',
  structures: 'left_nerve+right_nerve',
  structuresList: ['left_nerve', 'right_nerve'],
  ext: '.stl',
  date: '2026-11-21',
  jobId: 'r-1',
  patient: 'DOE JANE',
};

describe('output naming', () => {
  it('fills the default template with each part made safe for every file system', () => {
    expect(outputPath('/out', '{scan}/{series}/{structures}{ext}', values)).toBe(
      join('/out', 'Doe^Jane _ 1970', 'CBCT_ 0.3 mm', 'left_nerve+right_nerve.stl'),
    );
    expect(outputPath('/out', '{date}/{jobId}-{structures}{ext}', { ...values, scan: '' })).toBe(
      join('/out', '2026-11-21', 'r-1-left_nerve+right_nerve.stl'),
    );
    // A name that is only dots or reserved on Windows does not become a way out of the folder.
    expect(outputPath('/out', '{scan}/{structures}{ext}', { ...values, scan: '..' })).toBe(
      join('/out', '_', 'left_nerve+right_nerve.stl'),
    );
    expect(outputPath('/out', '{scan}/{structures}{ext}', { ...values, scan: 'CON' })).toBe(
      join('/out', '_CON', 'left_nerve+right_nerve.stl'),
    );
  });

  it('says what is wrong with a template', () => {
    expect(checkNamingTemplate('{scan}/{structures}{ext}')).toBeNull();
    expect(checkNamingTemplate('')).toMatch(/empty/);
    expect(checkNamingTemplate('/abs/{structures}{ext}')).toMatch(/relative/);
    expect(checkNamingTemplate('../{structures}{ext}')).toMatch(/"\.\."/);
    expect(checkNamingTemplate('{patient}/{structures}{ext}')).toBeNull();
    expect(checkNamingTemplate('{name}/{structures}{ext}')).toMatch(/unknown field \{name\}/);
    expect(checkNamingTemplate('{scan}/{ext}')).toMatch(/must contain \{structures\}/);
    expect(checkNamingTemplate('{structures}{ext}.bak')).toMatch(/end with \{ext\}/);
    expect(checkNamingTemplate('{scan/{structures}{ext}')).toMatch(/unmatched/);
  });
});

describe('placing downloads', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'scan2mesh-place-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives a staged file its name, "(2)" when taken, never replacing a file', async () => {
    const dest = join(dir, 'mandible.stl');
    await writeFile(dest, 'mine');
    const staging = stagingPath(dest, 'abcdef123456', 0);
    await writeFile(staging, 'mesh');
    const placed = await placeStaged(staging, dest);
    expect(placed).toBe(join(dir, 'mandible (2).stl'));
    expect(await readFile(dest, 'utf8')).toBe('mine');
    expect(await readFile(placed, 'utf8')).toBe('mesh');
  });

  it('after a crash between placing and recording, finds the name the file already has', async () => {
    const dest = join(dir, 'sub', 'mandible.stl');
    await mkdir(join(dir, 'sub'));
    await writeFile(dest, 'an older mesh');
    const staging = stagingPath(dest, 'abcdef123456', 1);
    await writeFile(staging, 'mesh');
    const staged = (await statOrNull(staging))!;
    expect(await adoptPlaced(staged, dest)).toBeNull();
    await link(staging, join(dir, 'sub', 'mandible (2).stl'));
    expect(await adoptPlaced(staged, dest)).toBe(join(dir, 'sub', 'mandible (2).stl'));
    expect(await statOrNull(join(dir, 'sub', 'nothing.stl'))).toBeNull();
  });

  it('removes what an interrupted download left, and only that', async () => {
    const dest = join(dir, 'mandible.stl');
    const staging = stagingPath(dest, 'abcdef123456', 0);
    const name = staging.slice(dir.length + 1);
    await writeFile(join(dir, `.${name}.1a2b3c4d.part`), 'half');
    await writeFile(join(dir, 'mandible.stl.part'), 'not ours');
    expect(await removePartials(staging)).toBe(false);
    expect(await readdir(dir)).toEqual(['mandible.stl.part']);
    await writeFile(staging, 'mesh');
    // The staging file itself is kept, and said to be there.
    expect(await removePartials(staging)).toBe(true);
    expect(await readdir(dir)).toContain(name);
  });

  it("checks a downloaded mesh by what its format says of its length, not by the service's size", async () => {
    const mesh = join(FIXTURES, 'mesh');
    // The spider's degenerate triangles, which the viewer warns of, are the saved mesh's note.
    for (const spider of ['spider-binary.stl', 'spider-ascii.stl'])
      await expect(checkMeshFile(join(mesh, spider), extname(spider))).resolves.toBe(
        '56 of 1,368 triangles are degenerate (zero area) and draw nothing.',
      );
    for (const good of [
      'bad/binary-stl-with-solid-header.stl',
      'turbineblade-binary.ply',
      'bunny-ascii.ply',
      'bunny.drc',
      'spot-public-domain.obj',
    ])
      await expect(checkMeshFile(join(mesh, good), extname(good))).resolves.toBeUndefined();
    let made = 0;
    /** A damaged copy of a fixture, as a download's temporary file. */
    const cut = async (name: string, keep: (b: Buffer) => Buffer): Promise<string> => {
      const path = join(dir, `.${name}.${++made}.part`);
      await writeFile(path, keep(await readFile(join(mesh, name))));
      return path;
    };
    const refusals: [string, string, RegExp][] = [
      [
        await cut('spider-binary.stl', (b) => b.subarray(0, -1)),
        '.stl',
        /announces 1,368 triangles \(68,484 bytes\) but the file has only 68,483 bytes, so it is truncated/,
      ],
      [
        await cut('spider-binary.stl', (b) => Buffer.concat([b, Buffer.alloc(50)])),
        '.stl',
        /neither a binary STL \(its size, 68,534 bytes/,
      ],
      [
        await cut('spider-ascii.stl', (b) => b.subarray(0, b.length >> 1)),
        '.stl',
        /it ends inside the facet of line 4,783, so it is truncated/,
      ],
      [
        await cut('turbineblade-binary.ply', (b) => b.subarray(0, -100)),
        '.ply',
        /it ends after 199,026 of the 199,034 "face" elements its header declares, so it is truncated/,
      ],
      [join(mesh, 'bad', 'truncated-binary-pointcloud.ply'), '.ply', /header announces at least/],
      [await cut('bunny-ascii.ply', (b) => b.subarray(0, 200)), '.ply', /"end_header" is missing/],
      [await cut('bunny.drc', (b) => b.subarray(5)), '.drc', /does not start with "DRACO"/],
      [join(mesh, 'bad', 'empty.obj'), '.obj', /it is empty/],
    ];
    for (const [path, ext, why] of refusals) {
      const e = await checkMeshFile(path, ext, `mandible${ext}`).then(
        () => undefined,
        (err: unknown) => err as AppError,
      );
      expect(e?.message).toMatch(why);
      expect(e?.message).toContain(`mesh mandible${ext} is not a usable`);
      // The transfer has tried again already: the job is not waited out for the same broken file.
      expect(e?.retryable).toBeFalsy();
    }
    // A format without a check is taken as it is.
    await expect(checkMeshFile(refusals[0]![0], '.vtk')).resolves.toBeUndefined();
  });
});
