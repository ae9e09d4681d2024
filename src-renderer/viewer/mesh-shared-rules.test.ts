import { describe, expect, it, vi } from 'vitest';
import {
  BAD_INPUTS,
  bytes,
  latin1,
  oneTriangleWithArea,
} from '../../src-shared/mesh-bad-inputs.test-support.js';
import { degenerateWarning } from '../../src-shared/mesh-viewable.js';
import { LineSplitter, MAX_LINE_BYTES } from '../../src-shared/mesh-text.js';
import { fixtureMesh } from './fixture-meshes.test-support.js';
import { MAX_FILE_BYTES, checkFileSize, checkTriangleBudget, meshBudget } from './mesh-budget.js';
import { formatCount } from './format-units.js';
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

  it('warns of triangles without area by the rule the download check notes them by', async () => {
    const data = oneTriangleWithArea(fixture);
    const buffer = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
    const parsed = await parseMesh('skull.stl', 'stl', buffer);
    const mesh = buildIndexedMesh(parsed.positions, parsed.index);
    // The download check's note on this file: src-main/jobs/mesh-check.test.ts.
    expect(degenerateWarning(mesh.degenerate, mesh.triangles, formatCount)).toBe(
      '1,367 of 1,368 triangles are degenerate (zero area) and draw nothing',
    );
  });

  it('refuses a file past the size the download check notes as too large for the viewer', () => {
    // One limit for both (src-shared/mesh-viewable.ts): the audit's 2 GB STL, saved with that note.
    expect(() => checkFileSize('skull.stl', 2_138_700_034, meshBudget(64, 0))).toThrow(
      'skull.stl is too large for this computer: 2,040 MB, more than 1,536 MB can be read.',
    );
    expect(() => checkFileSize('skull.stl', MAX_FILE_BYTES, meshBudget(64, 0))).not.toThrow();
  });
});
