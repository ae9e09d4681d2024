import { afterAll, describe, expect, it } from 'vitest';
import { createSlabPool, type SlabPool } from './iso-surface.js';
import { rehearse } from './rehearsal.js';

let pool: SlabPool | undefined;

afterAll(async () => {
  await pool?.close();
});

describe("a job worker's rehearsal before its job", () => {
  it('takes its made-up scan through every step to a simplified surface, on the mesh workers', async () => {
    pool = await createSlabPool(2);
    const triangles = await rehearse(pool, new AbortController().signal);
    // A closed shell at 1 mm: thousands of triangles after simplification, not a token few.
    expect(triangles).toBeGreaterThan(2_000);
  });

  it('stops between steps once its job has come', async () => {
    pool ??= await createSlabPool(2);
    const stop = new AbortController();
    stop.abort();
    expect(await rehearse(pool, stop.signal)).toBe(0);
  });
});
