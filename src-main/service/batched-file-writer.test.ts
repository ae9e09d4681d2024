import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileBatcher } from './batched-file-writer.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-batcher-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the file batcher of downloads', () => {
  // A TLS socket hands on reads after it was asked to wait: each came here while the one before was
  // still waiting for the disk, and two buffers were written to one place (a download came out short).
  it('takes bytes added while earlier ones wait, after them and in order', async () => {
    const path = join(dir, 'order.bin');
    const file = await FileBatcher.create(path, 1024);
    const parts = Array.from({ length: 300 }, (_, k) => Buffer.alloc(700 + (k % 5), k % 251));
    // Added at once, none waited for: from the third on, both buffers are being written.
    const waits = parts.map((p) => file.add(p));
    expect(waits.filter((w) => w !== undefined).length).toBeGreaterThan(100);
    await file.finish();
    expect((await readFile(path)).equals(Buffer.concat(parts))).toBe(true);
  });

  it('writes what waits before it closes, in order, when closed without finishing', async () => {
    // A download that fails closes its file (the caller removes it or resumes from it): whatever the
    // socket handed on before is on disk, in order, before the file is closed.
    const path = join(dir, 'closed.bin');
    const file = await FileBatcher.create(path, 1024);
    const parts = Array.from({ length: 20 }, (_, k) => Buffer.alloc(1000, k + 1));
    const waits = parts.map((p) => file.add(p));
    await file.close();
    expect((await Promise.allSettled(waits)).every((w) => w.status === 'fulfilled')).toBe(true);
    const saved = await readFile(path);
    // Whole buffers only: the last, partly filled one is finish()'s to write.
    expect(saved.length % 1024).toBe(0);
    expect(saved.equals(Buffer.concat(parts).subarray(0, saved.length))).toBe(true);
    expect(saved.length).toBeGreaterThanOrEqual(19 * 1024);
  });
});
