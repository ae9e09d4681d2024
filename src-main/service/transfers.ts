import { mkdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../../src-shared/errors.js';
import type { Logger } from '../logging/logger.js';
import { FileBatcher } from './batched-file-writer.js';
import {
  canceledError,
  discard,
  retryAfterMs,
  send,
  sendStreaming,
  TransportError,
  type Agents,
  type HttpResponse,
} from './http-transport.js';
import { waitBeforeRetry, type RetryPolicy } from './retry.js';
import {
  errorDetail,
  errorDetailOf,
  networkError,
  PresignedRefusedError,
  Transient,
} from './service-errors.js';
import { NotPlainBody, socketGetToFile, type SocketGetResult } from './socket-download.js';
import { parseTransportUrl, safeUrl } from './url-policy.js';

export interface TransferOptions {
  onProgress?: (done: number, total: number | undefined) => void;
  signal?: AbortSignal;
}

export interface DownloadOptions extends TransferOptions {
  /** `size` from the poll result; the file is refused when the bytes differ. */
  expectedSize?: number;
}

interface TransfersConfig {
  agents: Agents;
  retry: RetryPolicy;
  idleTimeoutMs: number;
  logger: Logger;
}

/** Socket reads gathered into one file write (see batched-file-writer.ts). */
const DOWNLOAD_BATCH = 1024 * 1024;
/** Progress is told at most every this many bytes, not for each 16 KiB TLS record (see throttledProgress). */
const PROGRESS_STEP = 256 * 1024;

/**
 * Uploads to and downloads from pre-signed addresses (§4): streamed from and to disk, so that a
 * 1 GiB scan never sits in memory, retried on connection errors, 429 and 5xx, and never with the
 * bearer token (the address carries its own signature).
 */
export class Transfers {
  constructor(private readonly cfg: TransfersConfig) {}

  /** PUT of a file to a pre-signed address, streamed from disk. */
  async upload(uploadUrl: string, filePath: string, opts: TransferOptions = {}): Promise<void> {
    const url = parseTransportUrl(uploadUrl, 'The upload address');
    const size = await fileSize(filePath);
    await this.withRetries('upload', url, opts.signal, async () => {
      opts.onProgress?.(0, size);
      const res = await send({
        method: 'PUT',
        url,
        headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': size },
        bodyFile: { path: filePath, size, onBytes: (sent) => opts.onProgress?.(sent, size) },
        agents: this.cfg.agents,
        signal: opts.signal,
        idleTimeoutMs: this.cfg.idleTimeoutMs,
      });
      if (res.status < 200 || res.status >= 300) return res;
      discard(res);
      return 'done';
    });
    this.cfg.logger.info('uploaded', { url: safeUrl(url), bytes: size });
  }

  /**
   * GET of a pre-signed address into a temporary file beside destPath, checked against the expected
   * size, then renamed to destPath, so a reader never sees half a file. The caller owns destPath (the
   * job queue hands a staging path; choosing a free name in the user's folder is jobs/output-place.ts's
   * work). Returns the path and the bytes.
   */
  async download(
    url: string,
    destPath: string,
    opts: DownloadOptions = {},
  ): Promise<{ path: string; bytes: number }> {
    const target = parseTransportUrl(url, 'The download address');
    await mkdir(dirname(destPath), { recursive: true });
    const tmp = join(dirname(destPath), `.${basename(destPath)}.${randomBytes(4).toString('hex')}.part`);
    let bytes = 0;
    try {
      await this.withRetries('download', target, opts.signal, async () => {
        const got = await this.downloadOnce(target, tmp, opts);
        if (typeof got !== 'number') return got;
        bytes = got;
        if (opts.expectedSize !== undefined && bytes !== opts.expectedSize)
          throw new Transient(
            new AppError(
              'service',
              `The downloaded file has ${bytes} bytes; the service said ${opts.expectedSize}.`,
              {
                action: 'Download it again; if it happens again, report it to the service operator.',
                retryable: true,
              },
            ),
          );
        return 'done';
      });
      await rename(tmp, destPath);
      this.cfg.logger.info('downloaded', { url: safeUrl(target), bytes });
      return { path: destPath, bytes };
    } catch (e) {
      await unlink(tmp).catch(() => {});
      throw e;
    }
  }

  /** One GET into `tmp`: the bytes written, or the answer when it is not a success. */
  private async downloadOnce(
    target: URL,
    tmp: string,
    opts: DownloadOptions,
  ): Promise<number | FailedAnswer> {
    const file = await FileBatcher.create(tmp, DOWNLOAD_BATCH, opts.expectedSize);
    try {
      const total = { value: opts.expectedSize };
      const progress = throttledProgress(opts.onProgress, () => total.value);
      let got: SocketGetResult;
      try {
        got = await socketGetToFile(target, file, {
          signal: opts.signal,
          idleTimeoutMs: this.cfg.idleTimeoutMs,
          onHead: (length) => {
            if (length !== undefined) total.value = length;
            progress(0);
          },
          onBytes: (n) => progress(n),
        });
      } catch (e) {
        if (!(e instanceof NotPlainBody)) throw e;
        // An answer shape the socket path leaves alone (a chunked body): the http module takes it.
        return await this.moduleDownload(target, file, opts, progress, total);
      }
      if (got.status < 200 || got.status >= 300)
        return { status: got.status, headers: got.headers, detail: errorDetailOf(got.errorBody ?? '') };
      progress(got.bytes, true);
      return got.bytes;
    } finally {
      await file.close().catch(() => {});
    }
  }

  /** One GET through Node's http module, for answers the socket path leaves alone. */
  private async moduleDownload(
    target: URL,
    file: FileBatcher,
    opts: DownloadOptions,
    progress: (done: number, last?: boolean) => void,
    total: { value: number | undefined },
  ): Promise<number | FailedAnswer> {
    const res = await sendStreaming({
      method: 'GET',
      url: target,
      headers: { Accept: '*/*' },
      agents: this.cfg.agents,
      signal: opts.signal,
      idleTimeoutMs: this.cfg.idleTimeoutMs,
    });
    if (res.status < 200 || res.status >= 300)
      return { status: res.status, headers: res.headers, detail: await errorDetail(res) };
    const header = res.headers['content-length'];
    if (header !== undefined) total.value = Number(header);
    progress(0);
    let bytes = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        const body = res.body;
        body.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          progress(bytes);
          const wait = file.add(chunk);
          if (!wait) return;
          body.pause();
          wait.then(
            () => body.resume(),
            (e: unknown) => {
              body.destroy();
              reject(e instanceof Error ? e : new Error(String(e)));
            },
          );
        });
        body.once('end', () => resolve());
        body.once('error', (e) => reject(e));
        body.once('close', () => {
          if (!body.complete) reject(new Error('the answer ended early'));
        });
      });
      await file.finish();
    } catch (e) {
      if (opts.signal?.aborted) throw canceledError();
      if (e instanceof AppError) throw e;
      throw new TransportError('the download was cut off', true, 'ECONNRESET', { cause: e });
    }
    if (header !== undefined && bytes !== Number(header))
      throw new TransportError(`the download ended after ${bytes} of ${header} bytes`, true, 'ECONNRESET');
    progress(bytes, true);
    return bytes;
  }

  /** `attempt` returns 'done' or an answer that is not a success; refusals other than 429 and 5xx end it. */
  private async withRetries(
    what: 'upload' | 'download',
    url: URL,
    signal: AbortSignal | undefined,
    attempt: () => Promise<'done' | HttpResponse | FailedAnswer>,
  ): Promise<void> {
    const label = what === 'upload' ? 'Upload' : 'Download';
    for (let n = 1; ; n++) {
      let failure: AppError;
      let wait: number | undefined;
      try {
        const res = await attempt();
        if (res === 'done') return;
        const detail = 'detail' in res ? res.detail : await errorDetail(res);
        if (res.status === 403) throw new PresignedRefusedError(what, res.status, detail);
        if (res.status !== 429 && res.status < 500)
          throw new AppError('service', `${label} refused by storage (${res.status}${detail}).`, {
            action: 'Submit the job again; if it happens again, report it to the service operator.',
          });
        wait = retryAfterMs(res.headers);
        failure = new AppError('service', `${label}: storage answered ${res.status}${detail}.`, {
          action: 'Try again later.',
          retryable: true,
        });
      } catch (e) {
        if (signal?.aborted) throw canceledError();
        if (e instanceof Transient) failure = e.failure;
        else if (e instanceof TransportError) failure = networkError(label, url, e);
        else throw e;
      }
      await waitBeforeRetry(
        this.cfg.retry,
        this.cfg.logger,
        { label, attempt: n, failure, retryAfterMs: wait },
        signal,
      );
    }
  }
}

/**
 * onProgress every PROGRESS_STEP bytes or every percent of the total, whichever is smaller (a small
 * file still shows progress), and at the end (`last`). The total is read when the answer's head came.
 */
function throttledProgress(
  onProgress: TransferOptions['onProgress'],
  total: () => number | undefined,
): (done: number, last?: boolean) => void {
  if (!onProgress) return () => {};
  let step = PROGRESS_STEP;
  let next = 0;
  return (done, last = false) => {
    if (done < next && !last) return;
    if (done === 0) {
      const t = total();
      step = t ? Math.max(1, Math.min(PROGRESS_STEP, Math.floor(t / 100))) : PROGRESS_STEP;
    }
    next = done + step;
    onProgress(done, total());
  };
}

/** An answer other than a success whose body has been read already (the socket path). */
interface FailedAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  detail: string;
}

async function fileSize(path: string): Promise<number> {
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new Error('not a file');
    return s.size;
  } catch (e) {
    throw new AppError('bad-input', `The file to upload cannot be read: ${path}.`, {
      action: 'Check that the file exists and can be read, then submit again.',
      cause: e,
    });
  }
}
