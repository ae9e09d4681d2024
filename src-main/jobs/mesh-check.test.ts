import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { oneTriangleWithArea } from '../../src-shared/mesh-bad-inputs.test-support.js';
import { HARD_MAX_TRIANGLES, MAX_FILE_BYTES } from '../../src-shared/mesh-viewable.js';
import { writeMesh } from '../engine/segmentation/mesh-writers.js';
import { FIXTURES } from './jobs.test-support.js';
import { savedMeshNote } from './mesh-check.js';
import { CHUNK } from './mesh-scan.js';
import { checkMeshFile } from './output-place.js';

const MESH = join(FIXTURES, 'mesh');
let dir: string;
let made = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-mesh-check-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const fixture = (name: string): Promise<Buffer> => readFile(join(MESH, name));

/** The check's verdict on these bytes saved as a download with this extension: undefined when kept. */
async function verdict(bytes: Buffer | string, ext: string): Promise<string | undefined> {
  const path = join(dir, `download-${++made}${ext}`);
  await writeFile(path, bytes);
  return checkMeshFile(path, ext, `mesh${ext}`).then(
    () => undefined,
    (e: unknown) => (e as Error).message,
  );
}

/** A text fixture with its header's `element face` line preceded by `extra` header lines. */
const withHeaderLines = (text: string, extra: string): string =>
  text.replace(/element face/, `${extra}\nelement face`);

describe('the download check of a mesh', () => {
  it('refuses PLY elements that cost no bytes, whatever their count (D1)', async () => {
    const ascii = (await fixture('bunny-ascii.ply')).toString('latin1');
    for (const count of ['9007199254740991', '4294967295'])
      expect(await verdict(withHeaderLines(ascii, `element pad ${count}`), '.ply')).toMatch(
        /"pad" elements with no data/,
      );
    const binary = await fixture('turbineblade-binary.ply');
    const end = binary.indexOf('end_header');
    const padded = Buffer.concat([
      binary.subarray(0, end),
      Buffer.from('element pad 9007199254740991\n'),
      binary.subarray(end),
    ]);
    expect(await verdict(padded, '.ply')).toMatch(/9,007,199,254,740,991 "pad" elements with no data/);
  });

  it('refuses an ASCII PLY or OBJ whose body ends before what it declares (D3)', async () => {
    const ply = (await fixture('bunny-ascii.ply')).toString('latin1');
    const lines = ply.split('\n');
    const cut = lines.slice(0, lines.length - 20_000).join('\n') + '\n';
    expect(await verdict(cut, '.ply')).toMatch(/ends after 49,452 of the 69,451 "face" elements/);
    const obj = (await fixture('spot-public-domain.obj')).toString('latin1');
    expect(await verdict(obj.slice(0, obj.lastIndexOf('\nf ') + 9), '.obj')).toMatch(
      /ends in the middle of a statement \("f [^"]*"\), so it is truncated/,
    );
    // A whole CRLF copy is whole.
    expect(await verdict(ply.replace(/\n/g, '\r\n'), '.ply')).toBeUndefined();
  });

  it('names content that is no mesh, or another format, whatever the extension (D4)', async () => {
    const page = '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head></html>\n';
    const json = '{"error": "upstream timed out", "status": 504}';
    for (const ext of ['.stl', '.ply', '.obj', '.drc']) {
      expect(await verdict(page, ext)).toMatch(/is not a usable .* mesh: it is a web page/);
      expect(await verdict(json, ext)).toMatch(/: it is JSON/);
    }
    const spot = await fixture('spot-public-domain.obj');
    expect(await verdict(gzipSync(spot), '.obj')).toMatch(/it is gzip-compressed data, not an OBJ mesh/);
    expect(await verdict(await fixture('spider-binary.stl'), '.obj')).toMatch(
      /it is a binary STL, not an OBJ/,
    );
    expect(await verdict(await fixture('bunny-ascii.ply'), '.stl')).toMatch(/it is a PLY file, not an STL/);
  });

  it('refuses a Draco file cut short or with a header only, and empty meshes of every format (D4)', async () => {
    const drc = await fixture('bunny.drc');
    expect(await verdict(drc, '.drc')).toBeUndefined();
    expect(await verdict(drc.subarray(0, 12), '.drc')).toMatch(/only 12 bytes: a Draco header and no mesh/);
    expect(await verdict(drc.subarray(0, drc.length >> 1), '.drc')).toMatch(/Draco's decoder cannot read it/);
    const stl = Buffer.from((await fixture('spider-binary.stl')).subarray(0, 84));
    stl.writeUInt32LE(0, 80);
    expect(await verdict(stl, '.stl')).toMatch(/holds no triangles: the mesh is empty/);
    const spot = (await fixture('spot-public-domain.obj')).toString('latin1');
    const noFaces = spot.replace(/^f .*\n/gm, '');
    expect(await verdict(noFaces, '.obj')).toMatch(/no faces \("f"\)/);
  });

  it('decodes a Draco file too large to decode on the main thread in a worker, and refuses it when damaged', async () => {
    // Past 16 MiB the check used to read the header alone: a damaged body was saved as done. The
    // bunny with zeros after it, to 17 MiB (Draco's decoder stops at the mesh's end, as the viewer's).
    const drc = await fixture('bunny.drc');
    const large = (b: Buffer): Buffer => Buffer.concat([b, Buffer.alloc(17 * 1024 * 1024 - b.length)]);
    expect(await verdict(large(drc), '.drc')).toBeUndefined();
    expect(await verdict(large(drc.subarray(0, drc.length >> 1)), '.drc')).toMatch(
      /Draco's decoder cannot read it \(Failed to decode point attributes\.\): it is cut off or damaged/,
    );
    const scrambled = Buffer.from(drc);
    for (let i = 2000; i < 2400; i++) scrambled[i]! ^= 0x5a;
    expect(await verdict(large(scrambled), '.drc')).toMatch(/Draco's decoder cannot read it/);
  });

  it('refuses coordinates beyond a kilometre, or not numbers (D5)', async () => {
    const stl = Buffer.from(await fixture('spider-binary.stl'));
    stl.writeFloatLE(1e30, 84 + 50 * 7 + 12);
    expect(await verdict(stl, '.stl')).toMatch(/coordinates as large as 1.00e\+30, beyond ±1,000,000 mm/);
    const obj = (await fixture('spot-public-domain.obj')).toString('latin1').replace(/^v .*$/m, 'v 1e38 0 0');
    expect(await verdict(obj, '.obj')).toMatch(/as large as 1.00e\+38/);
  });

  it('reads a mesh of more than one chunk as it reads a small one read whole, records across chunks included', async () => {
    // Up to CHUNK the file comes whole with its head; past it, a CHUNK at a time from offset 84.
    const bunny = Buffer.from(await fixture('bunny-binary.stl'));
    expect(bunny.length).toBeGreaterThan(2 * CHUNK);
    expect(await verdict(bunny, '.stl')).toBeUndefined();
    // The record that straddles the first chunk's end, its last corner's z beyond it.
    const straddling = 84 + Math.floor(CHUNK / 50) * 50;
    expect(straddling + 48).toBeGreaterThan(84 + CHUNK);
    const far = Buffer.from(bunny);
    far.writeFloatLE(1e30, straddling + 12 + 32);
    expect(await verdict(far, '.stl')).toMatch(/coordinates as large as 1.00e\+30/);
    const last = Buffer.from(bunny);
    last.writeFloatLE(NaN, bunny.length - 50 + 12);
    expect(await verdict(last, '.stl')).toMatch(/not numbers \(NaN or infinite\)/);
    const spider = Buffer.from(await fixture('spider-binary.stl'));
    spider.writeFloatLE(NaN, spider.length - 50 + 12);
    expect(await verdict(spider, '.stl')).toMatch(/not numbers \(NaN or infinite\)/);
  });

  it('keeps a binary STL padded by a few bytes and a small ASCII STL with a non-ASCII name (D8)', async () => {
    const spider = await fixture('spider-binary.stl');
    expect(await verdict(Buffer.concat([spider, Buffer.from('\n\0\0\0')]), '.stl')).toBeUndefined();
    expect(await verdict(Buffer.concat([spider, Buffer.alloc(50)]), '.stl')).toMatch(/neither a binary STL/);
    const facet = (await fixture('sphere-ascii.stl')).toString('latin1').match(/facet[\s\S]*?endfacet\n/)![0];
    const small = Buffer.concat([
      Buffer.from('solid Schädel-Ünterkiefer \u{1F9B7}\n', 'utf8'),
      Buffer.from(facet, 'latin1'),
      Buffer.from('endsolid\n'),
    ]);
    expect(small.length).toBeLessThan(300);
    expect(await verdict(small, '.stl')).toBeUndefined();
  });

  it('says which vertex a face names that the mesh does not have (D8)', async () => {
    const spot = (await fixture('spot-public-domain.obj')).toString('latin1');
    for (const bad of ['0', '-99999', '99999'])
      expect(await verdict(spot.replace(/^f \S+/m, `f ${bad}`), '.obj')).toMatch(
        new RegExp(`a face refers to vertex ${bad}, which the mesh does not have`),
      );
    const ply = (await fixture('bunny-ascii.ply')).toString('latin1').replace(/^3 \d+/m, '3 35947');
    expect(await verdict(ply, '.ply')).toMatch(
      /a face refers to vertex 35947, which the mesh does not have \(it has 35,947 vertices\)/,
    );
    const unknown = (await fixture('bunny-ascii.ply'))
      .toString('latin1')
      .replace('property float x', 'property float128 x');
    expect(await verdict(unknown, '.ply')).toMatch(/names a property type no reader knows \("float128"\)/);
  });

  it('refuses a mesh whose every triangle has no area, in every format, and keeps one with area', async () => {
    // The real fixtures with each vertex moved onto the x axis: every triangle lies on one line.
    const spider = Buffer.from(await fixture('spider-binary.stl'));
    const triangles = spider.readUInt32LE(80);
    for (let t = 0; t < triangles; t++)
      for (let c = 0; c < 3; c++)
        for (const axis of [1, 2]) spider.writeFloatLE(0, 84 + 50 * t + 12 + 12 * c + 4 * axis);
    expect(await verdict(spider, '.stl')).toMatch(
      new RegExp(`all ${triangles.toLocaleString('en-US')} of its triangles are degenerate \\(zero area\\)`),
    );
    const sphere = (await fixture('sphere-ascii.stl')).toString('latin1');
    const onLine = sphere.replace(/vertex\s+(\S+)\s+\S+\s+\S+/g, 'vertex $1 0 0');
    expect(await verdict(onLine, '.stl')).toMatch(/degenerate \(zero area\)/);
    const bunny = (await fixture('bunny-ascii.ply')).toString('latin1');
    const [head, body] = bunny.split('end_header\n') as [string, string];
    const lines = body.split('\n');
    for (let i = 0; i < 35947; i++) lines[i] = lines[i]!.replace(/^(\S+) \S+ \S+/, '$1 0 0');
    expect(await verdict(`${head}end_header\n${lines.join('\n')}`, '.ply')).toMatch(
      /degenerate \(zero area\)/,
    );
    const spot = (await fixture('spot-public-domain.obj')).toString('latin1');
    expect(await verdict(spot.replace(/^v (\S+) \S+ \S+/gm, 'v $1 0 0'), '.obj')).toMatch(/degenerate/);
    // Faces whose corners repeat a vertex: no area whatever the vertices.
    expect(await verdict(spot.replace(/^f (\S+) \S+ \S+/gm, 'f $1 $1 $1'), '.obj')).toMatch(/degenerate/);
    // Binary PLY and Draco, as the engine writes them: flat, then with one triangle given area back.
    const positions = new Float32Array([0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 0, 1, 0]);
    for (const [indices, kept] of [
      [[0, 1, 2, 1, 2, 3, 0, 0, 3], false],
      [[0, 1, 2, 1, 2, 3, 0, 1, 4], true],
    ] as const)
      for (const ext of ['.ply', '.drc'] as const) {
        const path = join(dir, `written-${++made}${ext}`);
        await writeMesh({ positions, indices: new Uint32Array(indices) }, path, ext);
        const got = await verdict(await readFile(path), ext);
        if (kept) expect(got).toBeUndefined();
        else expect(got).toMatch(/degenerate \(zero area\)/);
      }
    // One facet with area among flat ones is a surface to show.
    spider.writeFloatLE(5, 84 + 12 + 12 + 4);
    expect(await verdict(spider, '.stl')).toBeUndefined();
  });
});

describe('the note of a saved mesh: what the viewer warns of, or will not read', () => {
  it("carries the viewer's warning of triangles without area, in every format", async () => {
    const path = join(dir, 'one-real-triangle.stl');
    await writeFile(
      path,
      oneTriangleWithArea((p) => readFileSync(join(MESH, p))),
    );
    await expect(checkMeshFile(path, '.stl', 'skull.stl')).resolves.toBe(
      '1,367 of 1,368 triangles are degenerate (zero area) and draw nothing.',
    );
    // Binary PLY (faces after or before their vertices) and Draco: two flat triangles, one with area.
    const positions = new Float32Array([0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 0, 1, 0]);
    const indices = new Uint32Array([0, 1, 2, 1, 2, 3, 0, 1, 4]);
    for (const ext of ['.ply', '.drc'] as const) {
      const written = join(dir, `written-note-${++made}${ext}`);
      await writeMesh({ positions, indices }, written, ext);
      await expect(checkMeshFile(written, ext)).resolves.toBe(
        '2 of 3 triangles are degenerate (zero area) and draw nothing.',
      );
    }
    const ply = join(dir, 'faces-first.ply');
    await writeFile(
      ply,
      'ply\nformat ascii 1.0\nelement face 3\nproperty list uchar int vertex_indices\n' +
        'element vertex 5\nproperty float x\nproperty float y\nproperty float z\nend_header\n' +
        '3 0 1 2\n3 1 2 3\n3 0 1 4\n0 0 0\n1 0 0\n2 0 0\n3 0 0\n0 1 0\n',
    );
    await expect(checkMeshFile(ply, '.ply')).resolves.toBe(
      '2 of 3 triangles are degenerate (zero area) and draw nothing.',
    );
  });

  it('says plainly when the viewer will not read the mesh on any computer, as it does', () => {
    // The audit's 2,138,700,034-byte STL: the viewer refuses it past MAX_FILE_BYTES (1,536 MB).
    expect(savedMeshNote(2_138_700_034, { triangles: 42_774_000, degenerate: 0 })).toBe(
      'Saved, but too large for the built-in viewer (2,040 MB, more than 1,536 MB can be read): open it in another program, or ask for a decimated mesh (the service can reduce triangles).',
    );
    expect(savedMeshNote(MAX_FILE_BYTES, { triangles: 40_000_000, degenerate: 3 })).toBe(
      'Saved, but too large for the built-in viewer (40,000,000 triangles, more than the 30,000,000 it shows): open it in another program, or ask for a decimated mesh (the service can reduce triangles). 3 of 40,000,000 triangles are degenerate (zero area) and draw nothing.',
    );
    expect(savedMeshNote(MAX_FILE_BYTES, { triangles: HARD_MAX_TRIANGLES, degenerate: 0 })).toBeUndefined();
    // Too large to judge here: only the size rules speak.
    expect(savedMeshNote(1000, { triangles: 10, degenerate: undefined })).toBeUndefined();
  });
});
