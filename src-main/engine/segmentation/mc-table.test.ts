import { describe, expect, it } from 'vitest';
import { buildMcTable } from './mc-table.js';
import { MC_TABLE } from './mc-table.generated.js';

describe('the marching-cubes table the engine uses', () => {
  it('is the table mc-table.ts builds (else: node scripts/generate-mc-table.mjs)', () => {
    const built = buildMcTable();
    expect(Array.from(MC_TABLE.triStart)).toEqual(Array.from(built.triStart));
    expect(Array.from(MC_TABLE.triEdges)).toEqual(Array.from(built.triEdges));
    expect(Array.from(MC_TABLE.edgeMask)).toEqual(Array.from(built.edgeMask));
    // Types too: the extraction indexes them as the builder made them.
    expect([MC_TABLE.triStart, MC_TABLE.triEdges, MC_TABLE.edgeMask].map((a) => a.constructor)).toEqual([
      Uint16Array,
      Uint8Array,
      Uint16Array,
    ]);
  });
});
