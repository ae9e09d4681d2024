import { describe, expect, it } from 'vitest';
import { AppError } from '../../src-shared/errors.js';
import { HEADER_BYTES, formatFromFileName, requireFormat } from './mesh-format.js';
import { inspectMeshHeader } from './mesh-parse.js';
import type { MeshFormat } from './mesh-format.js';
import { fixtureMesh } from './fixture-meshes.test-support.js';

function inspect(path: string, format: MeshFormat) {
  const buffer = fixtureMesh(path);
  return inspectMeshHeader(
    path,
    format,
    new Uint8Array(buffer, 0, Math.min(HEADER_BYTES, buffer.byteLength)),
    buffer.byteLength,
  );
}

function failure(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError');
}

describe('mesh format', () => {
  it('knows formats by extension, case-insensitively', () => {
    expect(formatFromFileName('a/b/Mandible.STL')).toBe('stl');
    expect(formatFromFileName('x.drc')).toBe('drc');
    expect(formatFromFileName('scan.dcm')).toBeNull();
    const e = failure(() => requireFormat('scan.dcm'));
    expect(e.message).toContain('scan.dcm is not a mesh file');
    expect(e.action).toMatch(/STL, PLY, OBJ or Draco/);
  });

  it('reads exact triangle counts from binary STL and PLY headers', () => {
    expect(inspect('bunny-binary.stl', 'stl')).toEqual({ triangles: 69_451, exact: true });
    expect(inspect('skull-invesalius-cranium-400k-binary.stl', 'stl')).toEqual({
      triangles: 399_757,
      exact: true,
    });
    // A binary STL whose header starts with "solid": the size decides, as in STLLoader.
    expect(inspect('bad/binary-stl-with-solid-header.stl', 'stl').exact).toBe(true);
    expect(inspect('bunny-ascii.ply', 'ply').triangles).toBe(69_451);
    expect(inspect('turbineblade-binary.ply', 'ply').triangles).toBe(199_034);
  });

  it('estimates text formats high enough to guard the budget', () => {
    const ascii = inspect('spider-ascii.stl', 'stl');
    expect(ascii.exact).toBe(false);
    expect(ascii.triangles).toBeGreaterThan(1_368 * 0.8);
    expect(inspect('spot-public-domain.obj', 'obj').triangles).toBeGreaterThan(5_856);
    expect(inspect('bunny.drc', 'drc').triangles).toBeGreaterThan(69_451);
  });

  it('refuses empty, truncated, faceless and mislabelled files with a reason', () => {
    expect(failure(() => inspect('bad/empty.obj', 'obj')).message).toBe('bad/empty.obj is empty (0 bytes).');
    expect(failure(() => inspect('bad/empty.ply', 'ply')).message).toContain('empty');
    const truncated = failure(() => inspect('bad/truncated-binary-pointcloud.ply', 'ply'));
    expect(truncated.message).toContain(
      'at least 2,171,857 bytes but the file has 2,171,788, so it is truncated',
    );
    expect(truncated.action).toBeTruthy();
    expect(failure(() => inspect('bunny-binary.stl', 'ply')).message).toContain(
      'it is a binary STL, not a PLY mesh',
    );
    expect(failure(() => inspect('bunny-binary.stl', 'drc')).message).toContain('not a Draco file');
  });

  it('spots a cut-off binary STL from its header', () => {
    const whole = new Uint8Array(fixtureMesh('spider-binary.stl'));
    const cut = whole.slice(0, whole.length - 30);
    const e = failure(() => inspectMeshHeader('cut.stl', 'stl', cut, cut.length));
    expect(e.message).toContain('header announces 1,368 triangles');
    expect(e.message).toContain('truncated');
  });

  it('calls a PLY without faces a point cloud', () => {
    const header =
      'ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n1 0 0\n0 1 0\n';
    const bytes = new TextEncoder().encode(header);
    expect(failure(() => inspectMeshHeader('cloud.ply', 'ply', bytes, bytes.length)).message).toContain(
      'point cloud',
    );
  });
});
