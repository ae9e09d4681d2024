import { describe, expect, it } from 'vitest';
import { GPU_UPLOAD_TRIANGLES, SOFTWARE_FRAME_TRIANGLES, planBatches } from './draw-batches.js';
import type { DrawItem } from './draw-batches.js';

const chunks = (mesh: number, sizes: number[], uploaded = false): DrawItem[] =>
  sizes.map((triangles, chunk) => ({ mesh, chunk, triangles, uploaded }));

const shape = (batches: DrawItem[][]): string[][] => batches.map((b) => b.map((i) => `${i.mesh}.${i.chunk}`));

describe('planBatches', () => {
  it('draws the 400k skull in 13 software frames of one 32k chunk, in order', () => {
    const skull = chunks(0, [...Array<number>(12).fill(32_768), 399_757 - 12 * 32_768]);
    const batches = planBatches(skull, true);
    expect(batches).toHaveLength(13);
    expect(batches.flat()).toEqual(skull);
    for (const b of batches) {
      expect(b.reduce((n, i) => n + i.triangles, 0)).toBeLessThanOrEqual(SOFTWARE_FRAME_TRIANGLES);
    }
  });

  it('packs small meshes into one software frame and never splits below one chunk', () => {
    const items = [...chunks(0, [448]), ...chunks(1, [1368]), ...chunks(2, [40_000]), ...chunks(3, [5])];
    expect(shape(planBatches(items, true))).toEqual([['0.0', '1.0'], ['2.0'], ['3.0']]);
  });

  it('on a GPU pays only for uploads: drawn chunks cost nothing, new ones fill an upload budget', () => {
    const drawn = chunks(0, Array<number>(20).fill(32_768), true);
    const fresh = chunks(1, Array<number>(10).fill(32_768));
    const batches = planBatches([...drawn, ...fresh], false);
    const perFrame = GPU_UPLOAD_TRIANGLES / 32_768;
    expect(batches[0]).toHaveLength(20 + perFrame);
    expect(batches.slice(1).map((b) => b.length)).toEqual([perFrame, 10 - 2 * perFrame]);
    // Once uploaded, the whole scene is one frame again.
    expect(planBatches(chunks(0, Array<number>(30).fill(32_768), true), false)).toHaveLength(1);
  });

  it('plans nothing for an empty scene', () => {
    expect(planBatches([], true)).toEqual([]);
  });
});
