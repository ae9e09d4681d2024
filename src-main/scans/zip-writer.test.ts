// The plain zip writer with a caller that fills one buffer again for every entry (packaging reads
// slices that way): no entry may come out with the bytes of the next.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ZipWriter } from './zip-writer.js';
import { unzip } from './zip.test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'zip-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ZipWriter with a reused buffer', () => {
  it('keeps every entry its own bytes, small ones (batched) and large ones (written at once)', async () => {
    const path = join(dir, 'reused.zip');
    const zip = await ZipWriter.create(path);
    const scratch = Buffer.alloc(300 * 1024);
    // Sizes on both sides of the copy threshold, in an order that mixes them within one batch.
    const sizes = [1_000, 70_000, 5, 200_000, 64 * 1024 - 1, 64 * 1024, 3_000];
    const expected = new Map<string, Buffer>();
    for (const [k, size] of sizes.entries()) {
      const data = scratch.subarray(0, size);
      for (let i = 0; i < size; i++) data[i] = (i * 31 + k * 7) & 0xff;
      const name = `e${k}.bin`;
      expected.set(name, Buffer.from(data));
      await zip.add(name, data, false, true);
    }
    // The caller is free to overwrite its buffer once add returns.
    scratch.fill(0xee);
    await zip.finish();
    const got = await unzip(readFileSync(path));
    expect([...got.keys()]).toEqual([...expected.keys()]);
    for (const [name, bytes] of expected) expect(got.get(name)?.equals(bytes), name).toBe(true);
  });
});
