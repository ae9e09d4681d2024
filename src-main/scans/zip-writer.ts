import { open, type FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';
import { crc32, deflateRaw as deflateRawCb } from 'node:zlib';

const deflateRaw = promisify(deflateRawCb);

/**
 * A zip written from whole entries in memory, one after the other: each entry's size and CRC are
 * known before its header is written, so there are no data descriptors, no streams and no per-entry
 * zlib stream state; writes are gathered into one call per few MiB. The upload package of a series
 * (package-series.ts) is this shape: a few hundred slices of a few hundred KiB, each read whole.
 * Plain (32-bit) zip only: a package that may need zip64 (past 4 GiB or 65,535 entries) is made by
 * yazl instead, see fitsPlainZip().
 */

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL = 0x06054b50;
/** Version 2.0: deflate. Made by: Unix (3), so that the external attributes carry a file mode. */
const VERSION_NEEDED = 20;
const VERSION_MADE_BY = (3 << 8) | VERSION_NEEDED;
const STORED = 0;
const DEFLATED = 8;
/** 2000-01-01 00:00 in MS-DOS form: entries carry no date of the user's files. */
const DOS_DATE = ((2000 - 1980) << 9) | (1 << 5) | 1;
const DOS_TIME = 0;
/** A regular file, rw-r--r--, in the high half of the external attributes. */
const EXTERNAL_ATTRIBUTES = (0o100644 << 16) >>> 0;
const MAX_ENTRIES = 0xffff;
const MAX_OFFSET = 0xffffffff;
/** Written in one call once this much is waiting. */
const WRITE_BATCH = 4 * 1024 * 1024;
/** A reused entry smaller than this is copied to wait for the batch; a larger one is written at once. */
const COPY_BELOW = 64 * 1024;

/**
 * Whether entries of these sizes make a plain zip, with room to spare for headers and for entries
 * that grow a little on the way (de-identification may lengthen identifiers).
 */
export function fitsPlainZip(entries: number, bytes: number): boolean {
  return entries < MAX_ENTRIES && bytes + entries * 1024 < MAX_OFFSET / 2;
}

interface CentralEntry {
  name: Buffer;
  method: number;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
}

export class ZipWriter {
  private readonly entries: CentralEntry[] = [];
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private offset = 0;

  private constructor(private readonly file: FileHandle) {}

  /** Creates (or empties) the file, readable and writable by the user only. */
  static async create(path: string): Promise<ZipWriter> {
    return new ZipWriter(await open(path, 'w', 0o600));
  }

  /**
   * Adds one entry, deflated when `compress`. A stored entry's `data` waits with the next few MiB
   * to go out in one write. When `reused` (the caller fills the same memory again next), a small
   * entry is copied to wait, and a large one is written before this returns.
   */
  async add(name: string, data: Buffer, compress: boolean, reused = false): Promise<void> {
    const nameBytes = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const body = compress ? await deflateRaw(data) : data;
    const entry: CentralEntry = {
      name: nameBytes,
      method: compress ? DEFLATED : STORED,
      crc,
      compressed: body.length,
      size: data.length,
      offset: this.offset,
    };
    if (this.entries.length >= MAX_ENTRIES || this.offset + 30 + nameBytes.length + body.length > MAX_OFFSET)
      throw new RangeError('The package is too large for a plain zip.');
    this.entries.push(entry);
    const header = Buffer.alloc(30 + nameBytes.length);
    header.writeUInt32LE(LOCAL_HEADER, 0);
    header.writeUInt16LE(VERSION_NEEDED, 4);
    header.writeUInt16LE(0, 6);
    header.writeUInt16LE(entry.method, 8);
    header.writeUInt16LE(DOS_TIME, 10);
    header.writeUInt16LE(DOS_DATE, 12);
    header.writeUInt32LE(crc, 14);
    header.writeUInt32LE(entry.compressed, 18);
    header.writeUInt32LE(entry.size, 22);
    header.writeUInt16LE(nameBytes.length, 26);
    header.writeUInt16LE(0, 28);
    nameBytes.copy(header, 30);
    const held = reused && body === data;
    if (held && body.length < COPY_BELOW) {
      await this.write(header, Buffer.from(body));
      return;
    }
    await this.write(header, body);
    if (held) await this.flush();
  }

  /** Writes the central directory, closes the file and says how many bytes it holds. */
  async finish(): Promise<number> {
    const start = this.offset;
    for (const e of this.entries) {
      const h = Buffer.alloc(46 + e.name.length);
      h.writeUInt32LE(CENTRAL_HEADER, 0);
      h.writeUInt16LE(VERSION_MADE_BY, 4);
      h.writeUInt16LE(VERSION_NEEDED, 6);
      h.writeUInt16LE(0, 8);
      h.writeUInt16LE(e.method, 10);
      h.writeUInt16LE(DOS_TIME, 12);
      h.writeUInt16LE(DOS_DATE, 14);
      h.writeUInt32LE(e.crc, 16);
      h.writeUInt32LE(e.compressed, 20);
      h.writeUInt32LE(e.size, 24);
      h.writeUInt16LE(e.name.length, 28);
      // Extra field, comment, disk number and internal attributes stay 0.
      h.writeUInt32LE(EXTERNAL_ATTRIBUTES, 38);
      h.writeUInt32LE(e.offset, 42);
      e.name.copy(h, 46);
      this.queue(h);
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(END_OF_CENTRAL, 0);
    end.writeUInt16LE(this.entries.length, 8);
    end.writeUInt16LE(this.entries.length, 10);
    end.writeUInt32LE(this.offset - start, 12);
    end.writeUInt32LE(start, 16);
    this.queue(end);
    await this.flush();
    await this.file.close();
    return this.offset;
  }

  /** Closes the file after a failure; what was written stays for the caller to remove. */
  async abort(): Promise<void> {
    this.pending = [];
    await this.file.close().catch(() => {});
  }

  private async write(...parts: Buffer[]): Promise<void> {
    this.queue(...parts);
    if (this.pendingBytes >= WRITE_BATCH) await this.flush();
  }

  private queue(...parts: Buffer[]): void {
    for (const p of parts) {
      this.pending.push(p);
      this.pendingBytes += p.length;
      this.offset += p.length;
    }
  }

  private async flush(): Promise<void> {
    let parts = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    while (parts.length > 0) {
      let { bytesWritten } = await this.file.writev(parts);
      // libuv writes every buffer (in IOV_MAX pieces) before it answers; should a write still come
      // back short, the rest goes again.
      const rest: Buffer[] = [];
      for (const p of parts) {
        if (bytesWritten >= p.length) bytesWritten -= p.length;
        else {
          rest.push(p.subarray(bytesWritten));
          bytesWritten = 0;
        }
      }
      parts = rest;
    }
  }
}
