import { read } from 'node:fs';
import { open } from 'node:fs/promises';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import type { Entry, Options, ZipFile } from 'yauzl';

/** A zip opened for reading, and what closes its file once every stream read from it has closed. */
export interface OpenZip {
  zip: ZipFile;
  close(): Promise<void>;
}

/**
 * The bytes `start` to `end` (exclusive) of an open file that other streams read too. Destroyed, it
 * waits for a read under way and leaves the file open (Node's file streams close their file).
 */
class RangeStream extends Readable {
  private pos: number;
  private reading = false;
  private afterRead: (() => void) | undefined;

  constructor(
    private readonly fd: number,
    start: number,
    private readonly end: number,
  ) {
    super();
    this.pos = start;
  }

  override _read(size: number): void {
    const want = Math.min(size, this.end - this.pos);
    if (want <= 0) {
      this.push(null);
      return;
    }
    const buffer = Buffer.allocUnsafe(want);
    this.reading = true;
    read(this.fd, buffer, 0, want, this.pos, (err, bytes) => {
      this.reading = false;
      const destroyed = this.afterRead;
      if (destroyed) {
        this.afterRead = undefined;
        destroyed();
      } else if (err) this.destroy(err);
      else if (bytes === 0) this.destroy(new Error('unexpected end of the file'));
      else {
        this.pos += bytes;
        this.push(bytes < want ? buffer.subarray(0, bytes) : buffer);
      }
    });
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    if (this.reading) this.afterRead = () => callback(err);
    else callback(err);
  }
}

/**
 * Opens a zip through one open file, read by streams of our own. yauzl's bundled reader (its
 * fd-slicer) crashes the process, a null file descriptor in a callback no caller can catch, when an
 * entry's stream is given up while its next read waits behind another entry's: a review's zip whose
 * first entry unpacks to more than its recorded size, four entries unpacked at once. The file is
 * closed once every stream read from it has closed.
 */
export async function openZipFile(path: string, options: Options): Promise<OpenZip> {
  // Loaded with the first archive: most drops hold none, and `inspect` should not pay for it.
  const { default: yauzl } = await import('yauzl');
  const handle = await open(path, 'r');
  const streams = new Set<Readable>();
  try {
    const { size } = await handle.stat();
    class FileReader extends yauzl.RandomAccessReader {
      override _readStreamForRange(start: number, end: number): Readable {
        const stream = new RangeStream(handle.fd, start, end);
        streams.add(stream);
        stream.once('close', () => streams.delete(stream));
        return stream;
      }
      override read(
        buffer: Buffer,
        offset: number,
        length: number,
        position: number,
        callback: (err: Error | null) => void,
      ): void {
        read(handle.fd, buffer, offset, length, position, (err, bytes) =>
          callback(err ?? (bytes < length ? new Error('unexpected end of the file') : null)),
        );
      }
    }
    const zip = await new Promise<ZipFile>((resolve, reject) =>
      yauzl.fromRandomAccessReader(new FileReader(), size, options, (err, z) =>
        err || !z ? reject(err ?? new Error('cannot open')) : resolve(z),
      ),
    );
    return {
      zip,
      close: async () => {
        zip.close();
        for (const s of streams) s.destroy();
        await Promise.all([...streams].map((s) => once(s, 'close')));
        await handle.close();
      },
    };
  } catch (e) {
    await handle.close();
    throw e;
  }
}

/** Unix file types live in the top bits of the external attributes of entries made on Unix or macOS. */
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const UNIX_HOSTS = new Set([3, 19]);

/** Whether the entry is a symbolic link stored as one: its data is the target's name, not a file. */
export function isLinkEntry(e: Entry): boolean {
  return UNIX_HOSTS.has(e.versionMadeBy >>> 8) && ((e.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK;
}
