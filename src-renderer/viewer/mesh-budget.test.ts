import { describe, expect, it } from 'vitest';
import {
  HARD_MAX_TRIANGLES,
  MAX_FILE_BYTES,
  PEAK_BYTES_PER_TRIANGLE,
  checkFileSize,
  checkTriangleBudget,
  meshBudget,
} from './mesh-budget.js';

describe('mesh budget', () => {
  it('gives a third of the device memory to a load, less what is shown already', () => {
    const eight = meshBudget(8, 0);
    expect(eight.maxTriangles).toBe(Math.floor((8 * 2 ** 30) / 3 / PEAK_BYTES_PER_TRIANGLE));
    expect(meshBudget(8, 5_000_000).maxTriangles).toBeLessThan(eight.maxTriangles);
    // Unknown memory: assume a modest machine rather than none.
    expect(meshBudget(undefined, 0).maxTriangles).toBe(meshBudget(4, 0).maxTriangles);
    expect(meshBudget(1024, 0).maxTriangles).toBe(HARD_MAX_TRIANGLES);
    expect(meshBudget(0.25, 10_000_000).maxTriangles).toBe(0);
  });

  it('refuses with a message that names the file and says what to do', () => {
    const budget = meshBudget(8, 0);
    expect(() => checkTriangleBudget('ok.stl', { triangles: 2_000_000, exact: true }, budget)).not.toThrow();
    expect(() => checkTriangleBudget('huge.stl', { triangles: 40_000_000, exact: true }, budget)).toThrow(
      /^huge\.stl is too large for this computer: 40,000,000 triangles, and 17,895,697 more fit/,
    );
    expect(() => checkTriangleBudget('huge.obj', { triangles: 40_000_000, exact: false }, budget)).toThrow(
      /about 40,000,000 triangles/,
    );
    expect(() => checkFileSize('big.stl', MAX_FILE_BYTES + 1, budget)).toThrow(/too large/);
    expect(() => checkFileSize('small.stl', 1_000, budget)).not.toThrow();
  });
});
