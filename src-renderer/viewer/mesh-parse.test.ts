import { describe, expect, it } from 'vitest';
import { AppError } from '../../src-shared/errors.js';
import { describeParseFailure, isAllocationFailure, parseMesh } from './mesh-parse.js';
import { fixtureMesh } from './fixture-meshes.test-support.js';

const triangles = (p: { positions: Float32Array; index: ArrayLike<number> | null }): number =>
  (p.index ? p.index.length : p.positions.length / 3) / 3;

describe('parseMesh with three loaders', () => {
  it('reads binary and ASCII STL as triangle soups', async () => {
    const bin = await parseMesh('bunny-binary.stl', 'stl', fixtureMesh('bunny-binary.stl'));
    expect(bin.index).toBeNull();
    expect(triangles(bin)).toBe(69_451);
    const ascii = await parseMesh('spider-ascii.stl', 'stl', fixtureMesh('spider-ascii.stl'));
    const binary = await parseMesh('spider-binary.stl', 'stl', fixtureMesh('spider-binary.stl'));
    expect(triangles(ascii)).toBe(1_368);
    expect(triangles(binary)).toBe(1_368);
  });

  it('reads the binary STL whose header starts with "solid" as binary', async () => {
    const p = await parseMesh('x.stl', 'stl', fixtureMesh('bad/binary-stl-with-solid-header.stl'));
    expect(triangles(p)).toBe((205_284 - 84) / 50);
  });

  it('reads ASCII and binary PLY with their faces', async () => {
    const ascii = await parseMesh('bunny-ascii.ply', 'ply', fixtureMesh('bunny-ascii.ply'));
    expect(ascii.index).not.toBeNull();
    expect(triangles(ascii)).toBe(69_451);
    const binary = await parseMesh('turbineblade-binary.ply', 'ply', fixtureMesh('turbineblade-binary.ply'));
    expect(triangles(binary)).toBe(199_034);
  });

  it('reads OBJ', async () => {
    const p = await parseMesh('spot.obj', 'obj', fixtureMesh('spot-public-domain.obj'));
    expect(triangles(p)).toBe(5_856);
  });

  it("refuses an OBJ without vertices as empty, in the download check's words", async () => {
    await expect(parseMesh('empty.obj', 'obj', new ArrayBuffer(0))).rejects.toThrow(
      'empty.obj cannot be read: it has no vertices ("v"): it holds no triangles: the mesh is empty.',
    );
  });

  it('turns a truncated binary file into a message that says so', async () => {
    const whole = fixtureMesh('turbineblade-binary.ply');
    const cut = whole.slice(0, whole.byteLength - 5_000);
    const e = await parseMesh('blade.ply', 'ply', cut).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).message).toBe(
      'blade.ply cannot be read: it ends after 198,649 of the 199,034 "face" elements its header declares, so it is truncated.',
    );
  });

  it('words other failures by format and recognises allocation failures', () => {
    expect(describeParseFailure('m.obj', 'obj', new Error('bad token')).message).toBe(
      'm.obj is not a readable OBJ mesh (bad token).',
    );
    expect(isAllocationFailure(new RangeError('Array buffer allocation failed'))).toBe(true);
    expect(isAllocationFailure(new RangeError('Offset is outside the bounds of the DataView'))).toBe(false);
    expect(
      describeParseFailure('big.stl', 'stl', new RangeError('Array buffer allocation failed')).message,
    ).toContain('too large to load on this computer');
  });
});
