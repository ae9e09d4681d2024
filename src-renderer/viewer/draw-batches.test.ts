import { describe, expect, it } from 'vitest';
import {
  GPU_UPLOAD_TRIANGLES,
  SOFTWARE_FRAME_TARGET_MS,
  SOFTWARE_FRAME_TRIANGLES,
  batchEnd,
  nextSoftwareBudget,
} from './draw-batches.js';
import type { DrawItem } from './draw-batches.js';

const chunks = (mesh: number, sizes: number[], uploaded = false): DrawItem[] =>
  sizes.map((triangles, chunk) => ({ mesh, chunk, triangles, uploaded }));

/** Every batch of a picture at a fixed budget, as the progressive draw takes them frame by frame. */
function batches(items: DrawItem[], software: boolean, budget: number): DrawItem[][] {
  const out: DrawItem[][] = [];
  for (let from = 0; from < items.length;) {
    const end = batchEnd(items, from, budget, software);
    out.push(items.slice(from, end));
    from = end;
  }
  return out;
}

const shape = (list: DrawItem[][]): string[][] => list.map((b) => b.map((i) => `${i.mesh}.${i.chunk}`));

describe('batchEnd', () => {
  it('draws the 400k skull in software frames of one 16k chunk at the first budget, two at double', () => {
    const skull = chunks(0, [...Array<number>(24).fill(16_384), 399_757 - 24 * 16_384]);
    const first = batches(skull, true, SOFTWARE_FRAME_TRIANGLES);
    expect(first).toHaveLength(25);
    expect(first.flat()).toEqual(skull);
    const faster = batches(skull, true, 2 * SOFTWARE_FRAME_TRIANGLES);
    expect(faster).toHaveLength(13);
    expect(faster.flat()).toEqual(skull);
    for (const b of faster) {
      expect(b.reduce((n, i) => n + i.triangles, 0)).toBeLessThanOrEqual(2 * SOFTWARE_FRAME_TRIANGLES);
    }
  });

  it('packs small meshes into one software frame and never splits below one chunk', () => {
    const items = [...chunks(0, [448]), ...chunks(1, [1368]), ...chunks(2, [40_000]), ...chunks(3, [5])];
    expect(shape(batches(items, true, SOFTWARE_FRAME_TRIANGLES))).toEqual([['0.0', '1.0'], ['2.0'], ['3.0']]);
  });

  it('on a GPU pays only for uploads: drawn chunks cost nothing, new ones fill an upload budget', () => {
    const drawn = chunks(0, Array<number>(20).fill(32_768), true);
    const fresh = chunks(1, Array<number>(10).fill(32_768));
    const list = batches([...drawn, ...fresh], false, GPU_UPLOAD_TRIANGLES);
    const perFrame = GPU_UPLOAD_TRIANGLES / 32_768;
    expect(list[0]).toHaveLength(20 + perFrame);
    expect(list.slice(1).map((b) => b.length)).toEqual([perFrame, 10 - 2 * perFrame]);
    // Once uploaded, the whole scene is one frame again.
    expect(
      batches(chunks(0, Array<number>(30).fill(32_768), true), false, GPU_UPLOAD_TRIANGLES),
    ).toHaveLength(1);
  });

  it('ends an empty scene where it starts', () => {
    expect(batchEnd([], 0, SOFTWARE_FRAME_TRIANGLES, true)).toBe(0);
  });
});

describe('nextSoftwareBudget', () => {
  it('keeps a budget whose frames take the target time', () => {
    expect(nextSoftwareBudget(32_768, 32_768, SOFTWARE_FRAME_TARGET_MS)).toBe(32_768);
  });

  it('shrinks after slow frames and grows after fast ones, at most by half or double at a time', () => {
    expect(nextSoftwareBudget(32_768, 32_768, SOFTWARE_FRAME_TARGET_MS * 1.5)).toBe(21_845);
    expect(nextSoftwareBudget(32_768, 32_768, 500)).toBe(16_384);
    expect(nextSoftwareBudget(32_768, 32_768, 17)).toBe(57_826);
    expect(nextSoftwareBudget(32_768, 32_768, 1)).toBe(65_536);
  });

  it('stays within its floor and ceiling, and ignores frames that tell nothing', () => {
    expect(nextSoftwareBudget(5_000, 5_000, 400)).toBe(4_096);
    expect(nextSoftwareBudget(200_000, 200_000, 5)).toBe(262_144);
    expect(nextSoftwareBudget(32_768, 0, 40)).toBe(32_768);
    expect(nextSoftwareBudget(32_768, 32_768, 0)).toBe(32_768);
  });
});
