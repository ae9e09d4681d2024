import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';

/** Reads a binary STL and welds corners by exact position, as any STL consumer must. */
export async function readStl(path: string): Promise<{ positions: Float32Array; indices: Uint32Array }> {
  const b = await readFile(path);
  const tris = b.readUInt32LE(80);
  expect(b.length).toBe(84 + 50 * tris);
  const ids = new Map<string, number>();
  const pos: number[] = [];
  const indices = new Uint32Array(tris * 3);
  for (let t = 0; t < tris; t++) {
    for (let k = 0; k < 3; k++) {
      const o = 84 + t * 50 + 12 + k * 12;
      const key = b.toString('latin1', o, o + 12);
      let id = ids.get(key);
      if (id === undefined) {
        id = ids.size;
        ids.set(key, id);
        pos.push(b.readFloatLE(o), b.readFloatLE(o + 4), b.readFloatLE(o + 8));
      }
      indices[t * 3 + k] = id;
    }
  }
  return { positions: Float32Array.from(pos), indices };
}

/** Connected pieces of a welded mesh, by a plain flood fill over shared corners (independent of the engine's count). */
export function piecesOf(mesh: { positions: Float32Array; indices: Uint32Array }): number {
  const n = mesh.positions.length / 3;
  const trisOf: number[][] = Array.from({ length: n }, () => []);
  const ix = mesh.indices;
  for (let t = 0; t < ix.length / 3; t++) for (let k = 0; k < 3; k++) trisOf[ix[t * 3 + k]!]!.push(t);
  const seen = new Uint8Array(ix.length / 3);
  let pieces = 0;
  for (let start = 0; start < seen.length; start++) {
    if (seen[start]) continue;
    pieces++;
    seen[start] = 1;
    const stack = [start];
    while (stack.length > 0) {
      const t = stack.pop()!;
      for (let k = 0; k < 3; k++)
        for (const u of trisOf[ix[t * 3 + k]!]!)
          if (!seen[u]) {
            seen[u] = 1;
            stack.push(u);
          }
    }
  }
  return pieces;
}
