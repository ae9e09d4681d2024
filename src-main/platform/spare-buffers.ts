/**
 * Buffers kept from one use to the next. Code that goes through buffer after buffer of a megabyte or
 * so (packaging slices, streaming uploads) would otherwise take fresh memory each time: the system
 * pays a page fault per 4 KiB on first touch (about as much as reading the bytes again), and V8 counts
 * the memory towards its next full garbage collection (the jobs bench: 28 full collections in 200
 * jobs before packaging kept its buffers, 5 after).
 */
export class SpareBuffers {
  private readonly free: Buffer[] = [];

  constructor(
    /** Buffers kept at most. */
    private readonly keep: number,
    /** The least a buffer made here holds, and the least one must hold to be kept. */
    private readonly minBytes: number,
    /** A buffer larger than this is left to the garbage collector. */
    private readonly maxBytes: number,
  ) {}

  /** A kept buffer of at least `bytes`, or a new one (of at least minBytes). */
  take(bytes: number): Buffer {
    const i = this.free.findIndex((b) => b.length >= bytes);
    if (i >= 0) return this.free.splice(i, 1)[0] as Buffer;
    return Buffer.allocUnsafeSlow(Math.max(bytes, this.minBytes));
  }

  /** Hands a buffer back: no one may read or write it afterwards. */
  give(b: Buffer): void {
    if (this.free.length < this.keep && b.length >= this.minBytes && b.length <= this.maxBytes)
      this.free.push(b);
  }
}
