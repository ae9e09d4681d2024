import { open, type FileHandle } from 'node:fs/promises';
import { PRIVATE_FILE_MODE } from '../platform/private-files.js';
import { writeFully } from '../platform/write-fully.js';

/**
 * A file sink for downloads, built for throughput. Socket reads arrive as buffers of 16 KiB (a TLS
 * record) to 64 KiB; written one by one, each is a hand-off to libuv's thread pool, and each stays
 * alive until its write ends, long enough to reach V8's old generation. Here every chunk is copied
 * at once into one of two fixed buffers (the chunk can die young) and a full buffer is written in one
 * call while the other fills.
 * Memory: two buffers, whatever the size of the file; made when first needed, and no larger than the
 * file's size once known (a 60 KiB mesh does not need 2 MiB: short-lived megabytes per download bring
 * V8's full garbage collections closer).
 */
export class FileBatcher {
  private readonly buffers: [Buffer | undefined, Buffer | undefined] = [undefined, undefined];
  private current = 0;
  private used = 0;
  /** The write of the other buffer, while it runs. */
  private inFlight: Promise<void> | undefined;
  /** The last add() that had to wait, until it has taken all its bytes. */
  private waiting: Promise<void> | undefined;
  private failure: Error | undefined;

  private batchBytes: number;
  /** Where the next write goes in the file. */
  private position = 0;
  /** The length to cut the file to before the next write (startAt). */
  private cutTo: number | undefined;

  private constructor(
    private handle: FileHandle | undefined,
    private readonly maxBatchBytes: number,
  ) {
    this.batchBytes = maxBatchBytes;
  }

  /**
   * `expectedBytes`: the file's size, when known (more may come; it is then written too). `from`: the
   * file is kept and written on from that byte (a download resumed), else it is made empty.
   */
  static async create(
    path: string,
    batchBytes = 1024 * 1024,
    expectedBytes?: number,
    from?: number,
  ): Promise<FileBatcher> {
    // A download is a patient's mesh: readable by the user only, from its first byte.
    const handle = await open(path, from === undefined ? 'w' : 'r+', PRIVATE_FILE_MODE);
    const file = new FileBatcher(handle, batchBytes);
    if (from !== undefined) file.startAt(from);
    if (expectedBytes !== undefined) file.expectBytes(expectedBytes);
    return file;
  }

  /**
   * Writes from byte `at` on, what lies past it cut away first (a resumed download whose storage sent
   * the whole file again: from 0). Before the first add() only.
   */
  startAt(at: number): void {
    this.position = at;
    this.cutTo = at;
  }

  /**
   * The file's size, learnt after the file was opened (a download's Content-Length comes with the
   * answer's head): the buffers are made no larger. Too late once a buffer exists.
   */
  expectBytes(bytes: number): void {
    if (this.buffers[0] || this.buffers[1]) return;
    this.batchBytes = Math.min(this.maxBatchBytes, Math.max(1, bytes));
  }

  /**
   * Copies src[start, end) in. Returns undefined when all of it was taken without waiting, else a
   * promise that settles once it was (the caller stops reading its source meanwhile). Bytes added
   * while an earlier add() still waits are kept aside and taken after its bytes, in order: two
   * buffers written at once would both go where the file's next byte goes.
   */
  add(src: Buffer, start = 0, end = src.length): Promise<void> | undefined {
    if (this.waiting) {
      const later = Buffer.from(src.subarray(start, end));
      return this.track(this.waiting.then(() => this.take(later, 0, later.length)));
    }
    const wait = this.take(src, start, end);
    return wait && this.track(wait);
  }

  /** Notes `wait` as the add() later ones queue behind, until it settles. */
  private track(wait: Promise<void>): Promise<void> {
    this.waiting = wait;
    const done = (): void => {
      if (this.waiting === wait) this.waiting = undefined;
    };
    wait.then(done, done);
    return wait;
  }

  private take(src: Buffer, start: number, end: number): Promise<void> | undefined {
    let offset = start;
    while (offset < end) {
      if (this.failure) return Promise.reject(this.failure);
      const n = src.copy(this.buffer(), this.used, offset, end);
      this.used += n;
      offset += n;
      if (this.used < this.batchBytes) continue;
      if (this.inFlight) {
        // Both buffers are busy: the rest waits for the disk. src may be reused by the caller after
        // this returns, so what is left of it is kept aside first.
        const rest = Buffer.from(src.subarray(offset, end));
        return this.inFlight.then(() => {
          this.inFlight = undefined;
          // A failed write leaves the file's end unknown: nothing is written after it.
          if (this.failure) throw this.failure;
          this.rotate();
          return this.take(rest, 0, rest.length);
        });
      }
      this.rotate();
    }
    return undefined;
  }

  async finish(): Promise<void> {
    while (this.waiting) await this.waiting;
    await this.inFlight;
    this.inFlight = undefined;
    if (this.failure) throw this.failure;
    if (this.used > 0) await this.writeAll(this.buffer(), this.used);
    else await this.cut();
    this.used = 0;
    await this.close();
  }

  /** Closes the file after any running write; what was written stays (the caller deletes it). */
  async close(): Promise<void> {
    while (this.waiting) await this.waiting.catch(() => {});
    await this.inFlight;
    // A cut asked for is made, also with nothing written after it: no bytes of an earlier version stay.
    await this.cut().catch(() => {});
    const h = this.handle;
    this.handle = undefined;
    await h?.close();
  }

  private buffer(): Buffer {
    return (this.buffers[this.current] ??= Buffer.allocUnsafe(this.batchBytes));
  }

  private rotate(): void {
    this.inFlight = this.writeAll(this.buffer(), this.used).catch((e: Error) => {
      this.failure = e;
    });
    this.current ^= 1;
    this.used = 0;
  }

  private async writeAll(buf: Buffer, length: number): Promise<void> {
    if (!this.handle) throw new Error('the file is closed');
    await this.cut();
    await writeFully(this.handle, buf, length, this.position);
    this.position += length;
  }

  private async cut(): Promise<void> {
    if (this.cutTo === undefined || !this.handle) return;
    await this.handle.truncate(this.cutTo);
    this.cutTo = undefined;
  }
}
