import type { FileHandle } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { writeFully } from './write-fully.js';

/**
 * A handle whose writes come back short, as a real file's may after a signal: no disk can be made to do
 * that on demand, so these few lines stand in for it. `perCall` bytes at most per write.
 */
function shortWriter(perCall: number): { handle: FileHandle; file: Buffer } {
  const file = Buffer.alloc(64);
  const handle = {
    write: (buf: Buffer, off: number, len: number, pos: number) => {
      const n = Math.min(len, perCall);
      buf.copy(file, pos, off, off + n);
      return Promise.resolve({ bytesWritten: n, buffer: buf });
    },
  } as unknown as FileHandle;
  return { handle, file };
}

describe('writeFully', () => {
  it('writes the rest again after short writes, each at its place', async () => {
    const { handle, file } = shortWriter(3);
    const data = Buffer.from('0123456789abcdef');
    await writeFully(handle, data, 10, 5);
    expect(file.subarray(5, 15).toString()).toBe('0123456789');
    expect(file[15]).toBe(0);
  });

  it('fails instead of looping when a write writes nothing', async () => {
    const { handle } = shortWriter(0);
    await expect(writeFully(handle, Buffer.from('abc'), 3, 0)).rejects.toThrow(/wrote nothing/);
  });
});
