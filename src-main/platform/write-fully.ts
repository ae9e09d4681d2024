import type { FileHandle } from 'node:fs/promises';

/**
 * Writes `length` bytes of `buf` at `position`, all of them: a write may come back short (a signal, a
 * quota), and the rest goes again. A write of nothing would go again forever: it is an error.
 */
export async function writeFully(
  handle: FileHandle,
  buf: Buffer,
  length: number,
  position: number,
): Promise<void> {
  for (let off = 0; off < length;) {
    const { bytesWritten } = await handle.write(buf, off, length - off, position + off);
    if (bytesWritten === 0) throw new Error(`a write of ${length - off} bytes wrote nothing`);
    off += bytesWritten;
  }
}
