import { open } from 'node:fs/promises';
import { SpareBuffers } from '../platform/spare-buffers.js';

export interface FileBodySource {
  path: string;
  /**
   * The file's size when the caller knows it (it sets Content-Length from it): a small file is then
   * read into buffers of its own size. The file is read to its end either way.
   */
  size?: number;
  /** Bytes handed to the request so far, after each read. */
  onBytes?: (sent: number) => void;
}

/** Where the body goes: a request of the http module. */
export interface BodySink {
  /** `cb` once the chunk has been handed on (the buffer may be used again). */
  write(chunk: Buffer, cb: () => void): unknown;
  end(): unknown;
  destroy(error: Error): unknown;
}

const BUFFER_BYTES = 1024 * 1024;
const BUFFERS = 2;
/** Below this, a body's buffers are its own (small, soon gone); from it on, 1 MiB ones from `spare`. */
const SMALL_BYTES = 64 * 1024;
/** 1 MiB buffers handed back by finished uploads: two uploads at once keep these four. */
const spare = new SpareBuffers(4, BUFFER_BYTES, BUFFER_BYTES);

/**
 * Streams a file into a request through two reused buffers: one is read from disk while the other
 * is being sent, and a buffer is read into again only after the request has flushed it. A file stream
 * would allocate a fresh buffer per read, which costs an upload about a third more CPU than curl's and
 * holds tens of MiB (bench/transfer.bench.ts). The 1 MiB buffers outlive the upload, for the next one:
 * a queue sending package after package would otherwise hand V8 megabytes of short-lived memory per
 * upload, each of them bringing its next full garbage collection closer. A small file gets buffers of
 * its size plus one byte (one read then meets its end). Returns stop(), for an answer that came
 * before the whole body went out.
 */
export function pipeFileBody(source: FileBodySource, req: BodySink): { stop(): void } {
  let stopped = false;
  const own =
    source.size !== undefined && source.size + 1 < SMALL_BYTES ? Math.max(source.size, 0) + 1 : undefined;
  const free: Buffer[] = [];
  let made = 0;
  let wake: (() => void) | undefined;
  const nextFree = async (): Promise<Buffer> => {
    for (;;) {
      const buf = free.pop();
      if (buf) return buf;
      if (made < BUFFERS) {
        made++;
        return own !== undefined ? Buffer.allocUnsafe(own) : spare.take(BUFFER_BYTES);
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  /** A buffer the request has flushed: for this body's next read, or (once the file is read) the next body. */
  const flushed = (buf: Buffer, done: boolean): void => {
    if (!done) free.push(buf);
    else spare.give(buf);
    wake?.();
  };
  let ended = false;
  const run = async (): Promise<void> => {
    const file = await open(source.path, 'r');
    try {
      let sent = 0;
      for (;;) {
        const buf = await nextFree();
        if (stopped) return flushed(buf, true);
        const { bytesRead } = await file.read(buf, 0, buf.length, sent);
        if (stopped) return flushed(buf, true);
        if (bytesRead === 0) {
          ended = true;
          for (const b of free.splice(0)) flushed(b, true);
          flushed(buf, true);
          req.end();
          return;
        }
        sent += bytesRead;
        source.onBytes?.(sent);
        req.write(buf.subarray(0, bytesRead), () => flushed(buf, ended));
      }
    } finally {
      await file.close();
    }
  };
  run().catch((e: unknown) => req.destroy(e instanceof Error ? e : new Error(String(e))));
  return {
    stop: () => {
      stopped = true;
      wake?.();
    },
  };
}
