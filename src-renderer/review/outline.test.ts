import { describe, expect, it } from 'vitest';
import { chainSegments, outlinesForView } from './outline';

describe('outlines', () => {
  it('chains segments given in any order and direction into one closed polyline', () => {
    // A unit square's four sides, shuffled, two of them reversed.
    const seg = Float32Array.from([1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 0, 0, 1]);
    const lines = chainSegments(seg);
    expect(lines).toHaveLength(1);
    const l = lines[0]!;
    expect(l.length).toBe(10); // five points: closed, back at the start
    expect([l[0], l[1]]).toEqual([l[8], l[9]]);
  });

  it('keeps apart pieces that do not touch', () => {
    const seg = Float32Array.from([0, 0, 1, 0, 1, 0, 2, 0, 5, 5, 6, 6]);
    const lines = chainSegments(seg)
      .map((l) => l.length / 2)
      .sort();
    expect(lines).toEqual([2, 3]);
  });

  it('projects a cube cut by an axial slice onto the slice pixels', async () => {
    // A 10 mm cube at (20..30, 40..50, 0..10); the slice at z = 5 with 0.5 mm pixels from (0, 0).
    const positions = Float32Array.from([
      20, 40, 0, 30, 40, 0, 30, 50, 0, 20, 50, 0, 20, 40, 10, 30, 40, 10, 30, 50, 10, 20, 50, 10,
    ]);
    const index = Uint16Array.from([
      0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4,
      7,
    ]);
    const [o] = await outlinesForView(
      [{ id: 'c', name: 'cube', colour: '#ff0000', mesh: { positions, index }, sharesFrame: true }],
      { origin: [0, 0, 5], column: [0.5, 0, 0], row: [0, 0.5, 0] },
    );
    expect(o!.dashed).toBe(false);
    const pts = o!.lines.flatMap((l) => [...l]);
    const us = pts.filter((_, i) => i % 2 === 0);
    const vs = pts.filter((_, i) => i % 2 === 1);
    expect(Math.min(...us)).toBeCloseTo(40, 5);
    expect(Math.max(...us)).toBeCloseTo(60, 5);
    expect(Math.min(...vs)).toBeCloseTo(80, 5);
    expect(Math.max(...vs)).toBeCloseTo(100, 5);
  });

  it('stops a cut whose slice is no longer shown', async () => {
    const positions = Float32Array.from([0, 0, -1, 1, 0, 1, 0, 1, 1]);
    const abort = new AbortController();
    abort.abort();
    const meshes = [
      { id: 't', name: 't', colour: '#fff', mesh: { positions, index: [0, 1, 2] }, sharesFrame: true },
    ];
    await expect(
      outlinesForView(meshes, { origin: [0, 0, 0], column: [1, 0, 0], row: [0, 1, 0] }, abort.signal),
    ).rejects.toThrow();
  });
});
