import { describe, expect, it } from 'vitest';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { AppError } from '../../../src-shared/errors.js';
import { fixtureMesh } from '../fixture-meshes.test-support.js';
import { weldVertices } from '../weld.js';
import { weldBinaryStl } from './stl-stream.js';

const SKULL = 'skull-invesalius-cranium-400k-binary.stl';

/** `bytes` as a stream of reads of the given sizes, in turn (the last size repeats). */
function streamOf(bytes: Uint8Array, sizes: number[]): ReadableStream<Uint8Array> {
  let at = 0;
  let k = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const n = sizes[Math.min(k++, sizes.length - 1)]!;
      controller.enqueue(bytes.slice(at, at + n));
      at += n;
    },
  });
}

/** A binary STL of the given triangles (corners only; normals and attributes zero). */
function binaryStl(triangles: number[][]): Uint8Array {
  const out = new Uint8Array(84 + 50 * triangles.length);
  const view = new DataView(out.buffer);
  view.setUint32(80, triangles.length, true);
  triangles.forEach((t, i) => t.forEach((v, k) => view.setFloat32(84 + 50 * i + 12 + 4 * k, v, true)));
  return out;
}

/** Element-wise equality (toEqual walks a 600,000-element array far too slowly). */
function sameValues(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

describe('weldBinaryStl', () => {
  it('welds the 400k skull read in reads of any size exactly as STLLoader and weldVertices do', async () => {
    const file = new Uint8Array(fixtureMesh(SKULL));
    const triangles = new DataView(file.buffer).getUint32(80, true);
    const parsed = new STLLoader().parse(file.buffer.slice(0));
    const expected = weldVertices(parsed.getAttribute('position').array as Float32Array, null);
    // Reads that cut the header and records anywhere, as a file stream's chunks may.
    for (const sizes of [[65_536], [7, 49, 50, 51, 1_000_003], [83, 1, 50, 25, 25, 99_999]]) {
      let heard = 0;
      const got = await weldBinaryStl(streamOf(file, sizes), triangles, (n) => (heard = n));
      expect(heard).toBe(file.length);
      expect(sameValues(got.positions, expected.positions)).toBe(true);
      expect(got.index.constructor).toBe(expected.index.constructor);
      expect(sameValues(got.index, expected.index)).toBe(true);
      expect(got.degenerate).toBe(expected.degenerate);
    }
  });

  it('refuses a file that ends early or goes on past its triangles', async () => {
    const file = binaryStl([
      [0, 0, 0, 1, 0, 0, 0, 1, 0],
      [0, 0, 0, 0, 1, 0, 0, 0, 1],
    ]);
    await expect(weldBinaryStl(streamOf(file.slice(0, file.length - 10), [16]), 2)).rejects.toThrow(
      /changed while it was being read/,
    );
    await expect(weldBinaryStl(streamOf(file, [16]), 1)).rejects.toThrow(AppError);
    const ok = await weldBinaryStl(streamOf(file, [1]), 2);
    expect(ok.positions.length / 3).toBe(4);
    expect([...ok.index]).toEqual([0, 1, 2, 0, 2, 3]);
  });

  it('refuses corners that are not numbers', async () => {
    const file = binaryStl([[0, 0, 0, NaN, 0, 0, 0, 1, 0]]);
    await expect(weldBinaryStl(streamOf(file, [50]), 1)).rejects.toThrow(/not numbers/);
  });
});
