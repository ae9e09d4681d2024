import { describe, expect, it, vi } from 'vitest';
import { BAD_INPUTS, bytes, latin1 } from '../../src-shared/mesh-bad-inputs.test-support.js';
import { LineSplitter, MAX_LINE_BYTES } from '../../src-shared/mesh-text.js';
import { fixtureMesh } from './fixture-meshes.test-support.js';
import { checkTriangleBudget, meshBudget } from './mesh-budget.js';
import type { MeshFormat } from './mesh-format.js';
import { inspectMeshHeader, parseMesh } from './mesh-parse.js';
import { buildIndexedMesh } from './weld.js';

const fixture = (path: string): Uint8Array => new Uint8Array(fixtureMesh(path));

/** Inspects, parses and welds as the loader's worker does: the triangles shown, or the refusal. */
async function view(name: string, format: MeshFormat, data: Uint8Array): Promise<number | string> {
  const buffer = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
  try {
    inspectMeshHeader(
      name,
      format,
      new Uint8Array(buffer, 0, Math.min(buffer.byteLength, 65_536)),
      data.length,
    );
    const parsed = await parseMesh(name, format, buffer);
    return buildIndexedMesh(parsed.positions, parsed.index).triangles;
  } catch (e) {
    return (e as Error).message;
  }
}

describe('the viewer, on the files the download check kept and it refused or showed wrong (audit B)', () => {
  for (const input of BAD_INPUTS)
    it(input.what, async () => {
      const got = await view(`mesh.${input.ext}`, input.ext, input.make(fixture));
      if (input.says instanceof RegExp) expect(got).toMatch(input.says);
      else expect(got).toBe(input.says.triangles);
    });

  it('stops reading a text mesh without line breaks once a line passes 1 MiB', async () => {
    const push = vi.spyOn(LineSplitter.prototype, 'push');
    try {
      const obj = latin1(fixture('spot-public-domain.obj'));
      const got = await view('long.obj', 'obj', bytes(`${obj}f 1 2 3${' 1'.repeat(4_000_000)}`));
      expect(got).toMatch(/line 12,012 is longer than 1,048,576 bytes: not an OBJ mesh/);
      const read = push.mock.calls.reduce((n, [text]) => n + text.length, 0);
      expect(read).toBeLessThan(obj.length + 2 * MAX_LINE_BYTES + 1);
    } finally {
      push.mockRestore();
    }
  });

  it('counts a PLY vertices in its memory budget, not its faces alone', () => {
    // The audit's 450 MB PLY: 150 million uchar vertices and one face. Only the header is read here.
    const header = bytes(
      latin1(fixture('turbineblade-binary.ply').subarray(0, 400))
        .split('end_header\n')[0]!
        .replace('element vertex 99519', 'element vertex 150000000')
        .replace(/property float/g, 'property uchar')
        .replace('element face 199034', 'element face 1') + 'end_header\n',
    );
    const facts = inspectMeshHeader('points.ply', 'ply', header, header.length + 450_000_000 + 13);
    expect(() => checkTriangleBudget('points.ply', facts, meshBudget(8, 0))).toThrow(
      /^points\.ply is too large for this computer: 150,000,000 vertices and about 1 triangle take the memory of 67,500,001 triangles, and 17,895,697 more fit/,
    );
    // A surface's vertices (up to one per triangle) cost nothing beyond its triangles.
    const bunny = inspectMeshHeader(
      'bunny.ply',
      'ply',
      fixture('bunny-ascii.ply').subarray(0, 65_536),
      3_033_195,
    );
    expect(() =>
      checkTriangleBudget('bunny.ply', bunny, { maxTriangles: 69_451, maxFileBytes: Infinity }),
    ).not.toThrow();
  });
});
