import { describe, expect, it } from 'vitest';
import { GPU_UPLOAD_TRIANGLES, nextBatch } from './draw-batches.js';
import type { DrawItem, DrawPart } from './draw-batches.js';
import { OFFSCREEN_BATCH_TRIANGLES } from './offscreen-picture.js';

const chunks = (mesh: number, sizes: number[], uploaded = false): DrawItem[] =>
  sizes.map((triangles, chunk) => ({ mesh, chunk, triangles, uploaded }));

/** Every batch of a picture at a fixed budget, as the progressive draw takes them frame by frame. */
function batches(items: DrawItem[], software: boolean, budget: number): DrawPart[][] {
  const out: DrawPart[][] = [];
  for (let at = { item: 0, offset: 0 }; at.item < items.length;) {
    const { parts, next } = nextBatch(items, at, budget, software);
    out.push(parts);
    at = next;
  }
  return out;
}

const shape = (list: DrawPart[][]): string[][] => list.map((b) => b.map((p) => `${p.mesh}.${p.chunk}`));
const triangles = (b: DrawPart[]): number => b.reduce((n, p) => n + p.count, 0);

/** Every triangle of every item drawn exactly once, in order, as contiguous parts. */
function expectCovered(items: DrawItem[], list: DrawPart[][]): void {
  const parts = list.flat();
  let k = 0;
  for (const item of items) {
    for (let drawn = 0; drawn < item.triangles;) {
      const p = parts[k++]!;
      expect([p.mesh, p.chunk, p.first]).toEqual([item.mesh, item.chunk, drawn]);
      expect(p.first + p.count).toBeLessThanOrEqual(item.triangles);
      drawn += p.count;
    }
  }
  expect(k).toBe(parts.length);
}

describe('nextBatch', () => {
  const skull = chunks(0, [...Array<number>(24).fill(16_384), 399_757 - 24 * 16_384]);

  it('draws the 400k skull off screen two chunks per batch, or a quarter chunk at a quarter-chunk budget', () => {
    const list = batches(skull, true, OFFSCREEN_BATCH_TRIANGLES);
    expect(list).toHaveLength(13);
    expect(shape(list)[0]).toEqual(['0.0', '0.1']);
    expectCovered(skull, list);
    for (const b of list) expect(triangles(b)).toBeLessThanOrEqual(OFFSCREEN_BATCH_TRIANGLES);
    const small = batches(skull, true, 4_096);
    expect(small).toHaveLength(98);
    expectCovered(skull, small);
  });

  it('fills a software budget across chunk boundaries, ending with part of a chunk', () => {
    const items = chunks(0, [10_000, 10_000, 10_000]);
    const list = batches(items, true, 12_000);
    expect(list.map((b) => b.map((p) => [p.chunk, p.first, p.count]))).toEqual([
      [
        [0, 0, 10_000],
        [1, 0, 2_000],
      ],
      [
        [1, 2_000, 8_000],
        [2, 0, 4_000],
      ],
      [[2, 4_000, 6_000]],
    ]);
    expectCovered(items, list);
  });

  it('leaves a sliver too thin for a draw call to the next software frame', () => {
    const list = batches(chunks(0, [7_500, 5_000]), true, 8_000);
    expect(list.map((b) => b.map((p) => [p.chunk, p.first, p.count]))).toEqual([
      [[0, 0, 7_500]],
      [[1, 0, 5_000]],
    ]);
  });

  it('packs small meshes into one software frame', () => {
    const items = [...chunks(0, [448]), ...chunks(1, [1368]), ...chunks(2, [40_000]), ...chunks(3, [5])];
    const list = batches(items, true, 16_384);
    expect(shape(list)).toEqual([['0.0', '1.0', '2.0'], ['2.0'], ['2.0', '3.0']]);
    expectCovered(items, list);
  });

  it('on a GPU pays only for uploads, whole chunks at a time: drawn chunks cost nothing, new ones fill an upload budget', () => {
    const drawn = chunks(0, Array<number>(20).fill(32_768), true);
    const fresh = chunks(1, Array<number>(10).fill(32_768));
    const list = batches([...drawn, ...fresh], false, GPU_UPLOAD_TRIANGLES);
    const perFrame = GPU_UPLOAD_TRIANGLES / 32_768;
    expect(list[0]).toHaveLength(20 + perFrame);
    expect(list.slice(1).map((b) => b.length)).toEqual([perFrame, 10 - 2 * perFrame]);
    for (const p of list.flat()) expect(p).toMatchObject({ first: 0, count: 32_768 });
    // Once uploaded, the whole scene is one frame again.
    expect(
      batches(chunks(0, Array<number>(30).fill(32_768), true), false, GPU_UPLOAD_TRIANGLES),
    ).toHaveLength(1);
    // A chunk larger than the budget still goes up whole, alone.
    expect(shape(batches(chunks(0, [200_000, 10]), false, GPU_UPLOAD_TRIANGLES))).toEqual([['0.0'], ['0.1']]);
  });

  it('ends an empty scene where it starts', () => {
    expect(nextBatch([], { item: 0, offset: 0 }, OFFSCREEN_BATCH_TRIANGLES, true)).toEqual({
      parts: [],
      next: { item: 0, offset: 0 },
    });
  });
});
