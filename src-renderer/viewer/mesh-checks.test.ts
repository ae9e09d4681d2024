import { describe, expect, it, vi } from 'vitest';
import { errorOf } from './formats/draco.js';
import { countObj } from './formats/obj-body.js';
import { fixtureMesh } from './fixture-meshes.test-support.js';
import { checkTriangleBudget } from './mesh-budget.js';
import type { MeshFormat } from './mesh-format.js';
import { inspectMeshHeader, parseMesh } from './mesh-parse.js';
import { silenceLimitMs, startWatchdog } from './parse-watchdog.js';
import { unitHint } from './unit-hint.js';
import { buildIndexedMesh } from './weld.js';

const bytesOf = (s: string): ArrayBuffer => new TextEncoder().encode(s).buffer as ArrayBuffer;
const latin1 = (b: ArrayBuffer): string => new TextDecoder('latin1').decode(b);
const fromLatin1 = (s: string): ArrayBuffer => Uint8Array.from(s, (c) => c.charCodeAt(0)).buffer;

/** Inspects, then parses, then welds, as the loader's worker does; the message of the refusal, if any. */
async function load(name: string, format: MeshFormat, buffer: ArrayBuffer, budget = Infinity) {
  const head = new Uint8Array(buffer, 0, Math.min(buffer.byteLength, 64 * 1024));
  const checkTriangles = (triangles: number): void =>
    checkTriangleBudget(name, { triangles, exact: true }, { maxTriangles: budget, maxFileBytes: Infinity });
  inspectMeshHeader(name, format, head, buffer.byteLength);
  const parsed = await parseMesh(name, format, buffer, { checkTriangles });
  return buildIndexedMesh(parsed.positions, parsed.index);
}
const refusal = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'loaded',
    (e: unknown) => (e as Error).message,
  );

const BUNNY_PLY = (): string => latin1(fixtureMesh('bunny-ascii.ply'));

describe('the viewer refuses or reads what the audit found', () => {
  it('refuses PLY elements with no data before walking them (D1)', async () => {
    // Walked, 2^53 empty elements would run for years: the test's own timeout catches the old code.
    const ply = BUNNY_PLY().replace('element face', 'element pad 9007199254740991\nelement face');
    expect(await refusal(load('pad.ply', 'ply', fromLatin1(ply)))).toMatch(/"pad" elements with no data/);
  });

  it('splits every PLY polygon into a fan of triangles, never dropping it (D2)', async () => {
    // Each bunny triangle written as a hexagon with each corner twice: a fan of 4, one with area.
    const ply = BUNNY_PLY().replace(/^3 (\d+) (\d+) (\d+)/gm, '6 $1 $1 $2 $2 $3 $3');
    const mesh = await load('hexagons.ply', 'ply', fromLatin1(ply));
    expect(mesh.triangles).toBe(4 * 69_451);
    expect(mesh.triangles - mesh.degenerate).toBe(69_451);
    const square = [
      'ply',
      'format ascii 1.0',
      'element vertex 6',
      'property float x',
      'property float y',
      'property float z',
      'element face 1',
      'property list uchar int vertex_indices',
      'end_header',
      '0 0 0',
      '10 0 0',
      '15 8 0',
      '10 16 0',
      '0 16 0',
      '-5 8 0',
      '6 0 1 2 3 4 5',
      '',
    ].join('\n');
    const p = await parseMesh('hex.ply', 'ply', bytesOf(square));
    expect(Array.from(p.index!)).toEqual([0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 5]);
  });

  it('refuses an ASCII PLY or OBJ that ends before what it declares (D3)', async () => {
    const lines = BUNNY_PLY().split('\n');
    const cut = lines.slice(0, lines.length - 20_000).join('\n');
    expect(await refusal(load('cut.ply', 'ply', fromLatin1(cut)))).toMatch(
      /ends after 49,45\d of the 69,451 "face" elements/,
    );
    const obj = latin1(fixtureMesh('spot-public-domain.obj'));
    expect(
      await refusal(load('cut.obj', 'obj', fromLatin1(obj.slice(0, obj.lastIndexOf('\nf ') + 9)))),
    ).toMatch(/ends in the middle of a statement/);
  });

  it('names a web page or JSON saved as a mesh, and refuses a binary STL of 0 triangles (D4)', async () => {
    const page = bytesOf('<!DOCTYPE html><html><body>502 Bad Gateway</body></html>');
    for (const f of ['stl', 'obj', 'drc'] as const)
      expect(await refusal(load(`x.${f}`, f, page.slice(0)))).toMatch(/it is a web page/);
    expect(await refusal(load('x.obj', 'obj', bytesOf('{"error": "not found"}')))).toMatch(/it is JSON/);
    expect(await refusal(load('x.obj', 'obj', fixtureMesh('spider-binary.stl')))).toMatch(
      /it is a binary STL/,
    );
    const empty = fixtureMesh('spider-binary.stl').slice(0, 84);
    new DataView(empty).setUint32(80, 0, true);
    expect(await refusal(load('empty.stl', 'stl', empty))).toMatch(/no triangles/);
    expect(await refusal(load('x.drc', 'drc', fixtureMesh('bunny.drc').slice(0, 12)))).toMatch(
      /a Draco header and no mesh/,
    );
  });

  it('frames the bulk of a mesh, tells of far strays, and refuses coordinates beyond a kilometre (D5)', async () => {
    const skull = fixtureMesh('skull-invesalius-cranium-400k-binary.stl');
    const stray = (x: number): ArrayBuffer => {
      const out = new Uint8Array(skull.byteLength + 50);
      out.set(new Uint8Array(skull));
      const v = new DataView(out.buffer);
      v.setUint32(80, v.getUint32(80, true) + 1, true);
      [x, 0, 0, x + 1, 0, 0, x, 1, 0].forEach((c, k) => v.setFloat32(skull.byteLength + 12 + 4 * k, c, true));
      return out.buffer;
    };
    const mesh = await load('skull.stl', 'stl', stray(5e5));
    const size = [0, 1, 2].map((k) => mesh.bounds[k + 3]! - mesh.bounds[k]!);
    expect(size[0]).toBeCloseTo(225.2, 0);
    expect(mesh.outliers?.count).toBe(3);
    expect(mesh.outliers!.farthest).toBeGreaterThan(4.9e5);
    expect(mesh.sphere[3]).toBeLessThan(200);
    expect(unitHint('skull.stl', mesh.bounds)).toBeNull();
    expect(await refusal(load('far.stl', 'stl', stray(1e30)))).toMatch(/coordinates as large as 1.00e\+30/);
  });

  it('counts an OBJ polygon corners before building, so the budget is an upper bound (D6)', async () => {
    const corners = Array.from({ length: 1000 }, (_, i) => (i % 9) + 1).join(' ');
    const obj = latin1(fixtureMesh('spot-public-domain.obj'))
      .split('\n')
      .filter((l) => l.startsWith('v '))
      .slice(0, 9);
    const text = `${obj.join('\n')}\n${`f ${corners}\n`.repeat(200)}`;
    expect(countObj(new TextEncoder().encode(text))).toEqual({ vertices: 9, triangles: 200 * 998 });
    // About 2 bytes a triangle: the size-based guess (30 B) says 13,000, the corners 199,600.
    expect(await refusal(load('fan.obj', 'obj', bytesOf(text), 100_000))).toMatch(
      /too large for this computer: 199,600 triangles, and 100,000 more fit/,
    );
  });

  it('refuses a mesh whose triangles have distinct corners on one line (D7)', async () => {
    const p = new Float32Array(100 * 9);
    for (let t = 0; t < 100; t++) p.set([t, 0, 0, t + 0.5, 0, 0, t + 1, 0, 0], t * 9);
    expect(() => buildIndexedMesh(p, null)).toThrow(/All 100 triangles of the mesh are degenerate/);
  });

  it('words Draco errors, unknown PLY types, content under the wrong name and bad OBJ indices (D8)', async () => {
    expect(errorOf({ type: 'error', id: 1, error: 'Failed to decode' }).message).toBe('Failed to decode');
    const float128 = BUNNY_PLY().replace('property float x', 'property float128 x');
    expect(await refusal(load('q.ply', 'ply', fromLatin1(float128)))).toMatch(
      /property type no reader knows \("float128"\)/,
    );
    expect(await refusal(load('ply.stl', 'stl', fixtureMesh('bunny-ascii.ply')))).toMatch(
      /it is a PLY file, not an STL/,
    );
    const spider = fixtureMesh('spider-binary.stl');
    const padded = new Uint8Array(spider.byteLength + 3);
    padded.set(new Uint8Array(spider));
    expect((await load('pad.stl', 'stl', padded.buffer)).triangles).toBe(1_368);
    const facet = latin1(fixtureMesh('sphere-ascii.stl')).match(/facet[\s\S]*?endfacet\n/)![0];
    const small = bytesOf(`solid Schädel-Ünterkiefer 🦷\n${facet}endsolid\n`);
    expect(small.byteLength).toBeLessThan(300);
    expect((await load('ä.stl', 'stl', small)).triangles).toBe(1);
    const spot = latin1(fixtureMesh('spot-public-domain.obj'));
    for (const bad of ['0', '-99999', '99999'])
      expect(await refusal(load('i.obj', 'obj', fromLatin1(spot.replace(/^f \S+/m, `f ${bad}`))))).toMatch(
        new RegExp(`a face refers to vertex ${bad}, which the mesh does not have`),
      );
  });

  it('stops a load that goes silent, once, and not one that keeps speaking', () => {
    vi.useFakeTimers();
    try {
      const stuck = vi.fn();
      startWatchdog(1_000, stuck);
      vi.advanceTimersByTime(999);
      expect(stuck).not.toHaveBeenCalled();
      vi.advanceTimersByTime(5_000);
      expect(stuck).toHaveBeenCalledTimes(1);
      const alive = vi.fn();
      const w = startWatchdog(1_000, alive);
      for (let i = 0; i < 10; i++) {
        vi.advanceTimersByTime(600);
        w.heard();
      }
      w.stop();
      vi.advanceTimersByTime(10_000);
      expect(alive).not.toHaveBeenCalled();
      expect(silenceLimitMs(1.5 * 2 ** 30)).toBeGreaterThan(silenceLimitMs(1_000));
    } finally {
      vi.useRealTimers();
    }
  });
});
