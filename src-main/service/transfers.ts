import { mkdir, rename, stat, unlink } from 'node:fs/promises';
import { PRIVATE_DIR_MODE } from '../platform/private-files.js';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../../src-shared/errors.js';
import type { Logger } from '../logging/logger.js';
import { FileBatcher } from './batched-file-writer.js';
import { decodeInPlace } from './content-coding.js';
import {
  canceledError,
  contentCoding,
  discard,
  retryAfterMs,
  send,
  TransportError,
  type Agents,
  type HttpResponse,
} from './http-transport.js';
import { waitBeforeRetry, type RetryPolicy } from './retry.js';
import {
  describeConnectionFailure,
  errorDetail,
  errorDetailOf,
  networkError,
  PresignedRefusedError,
  Transient,
} from './service-errors.js';
import { socketGetToFile, type SocketGetResult } from './socket-download.js';
import { parseTransportUrl, safeUrl } from './url-policy.js';

export interface TransferOptions {
  onProgress?: (done: number, total: number | undefined) => void;
  signal?: AbortSignal;
}

export interface DownloadOptions extends TransferOptions {
  /**
   * `size` from the poll result. Its unit is not stated (§2.3), so it is a hint only: the progress
   * total until the answer gives a Content-Length, and a confirmation when it equals the bytes. It never
   * fails a download: the transfer's own framing says whether the body is whole (and `verify`, the file).
   */
  expectedSize?: number;
  /**
   * Checks the downloaded file before it gets its name (the body was whole by the transfer's framing):
   * throws an AppError when the file is not usable. The download is then made again, as many times as
   * the retry policy allows; the last error is thrown as it is, so a non-retryable one ends the job's
   * tries too.
   */
  verify?: (path: string, bytes: number) => Promise<void>;
}

interface TransfersConfig {
  agents: Agents;
  retry: RetryPolicy;
  idleTimeoutMs: number;
  logger: Logger;
}

/** Socket reads gathered into one file write (see batched-file-writer.ts). */
const DOWNLOAD_BATCH = 1024 * 1024;
/** The smallest write batch when a body's length is unknown (the size hint may be in kB). */
const MIN_GUESSED_BATCH = 64 * 1024;
/** Progress is told at most every this many bytes, not for each 16 KiB TLS record (see throttledProgress). */
const PROGRESS_STEP = 256 * 1024;
/** Redirects followed in one attempt: storage redirects once or twice (to a region); more is a loop. */
const MAX_REDIRECTS = 5;
/** A GET may follow every redirect; 303 means "GET this instead", which a GET already is. */
const DOWNLOAD_REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
/** Only these keep the method and body (RFC 9110 §15.4); 301/302/303 would turn a PUT into a GET. */
const UPLOAD_REDIRECTS: ReadonlySet<number> = new Set([307, 308]);

/**
 * Uploads to and downloads from pre-signed addresses (§4): streamed from and to disk, so that a
 * 1 GiB scan never sits in memory, retried on connection errors, 429 and 5xx, and never with the
 * bearer token (the address carries its own signature). Redirects are followed (S3 answers 307 for a
 * bucket in another region), within MAX_REDIRECTS, never from https to http nor to plain http on
 * another computer; every attempt sends one request to each address, since a pre-signed address may
 * be good for one.
 */
export class Transfers {
  constructor(private readonly cfg: TransfersConfig) {}

  /** PUT of a file to a pre-signed address, streamed from disk; 307 and 308 send it again from the file. */
  async upload(uploadUrl: string, filePath: string, opts: TransferOptions = {}): Promise<void> {
    const first = parseTransportUrl(uploadUrl, 'The upload address');
    const size = await fileSize(filePath);
    await this.withRetries('upload', first, opts.signal, async () => {
      for (let url = first, hops = 0; ; hops++) {
        const res = await this.putFile(url, filePath, size, opts);
        if (res.status >= 200 && res.status < 300) {
          discard(res);
          return 'done';
        }
        if (!UPLOAD_REDIRECTS.has(res.status)) return res;
        discard(res);
        url = this.redirected('Upload', url, res, hops);
      }
    });
    this.cfg.logger.info('uploaded', { url: safeUrl(first), bytes: size });
  }

  /** One PUT of the file to one address. */
  private putFile(url: URL, filePath: string, size: number, opts: TransferOptions): Promise<HttpResponse> {
    opts.onProgress?.(0, size);
    return send({
      method: 'PUT',
      url,
      headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': size },
      bodyFile: { path: filePath, size, onBytes: (sent) => opts.onProgress?.(sent, size) },
      agents: this.cfg.agents,
      signal: opts.signal,
      idleTimeoutMs: this.cfg.idleTimeoutMs,
    });
  }

  /**
   * GET of a pre-signed address into a temporary file beside destPath, checked (opts.verify), then
   * renamed to destPath, so a reader never sees half a file. The caller owns destPath (the job queue
   * hands a staging path; choosing a free name in the user's folder is jobs/output-place.ts's work).
   * Returns the path and the bytes.
   */
  async download(
    url: string,
    destPath: string,
    opts: DownloadOptions = {},
  ): Promise<{ path: string; bytes: number }> {
    const target = parseTransportUrl(url, 'The download address');
    // A folder made here holds a patient's meshes: private, as the files in it (PRIVATE_FILE_MODE).
    await mkdir(dirname(destPath), { recursive: true, mode: PRIVATE_DIR_MODE });
    const tmp = join(dirname(destPath), `.${basename(destPath)}.${randomBytes(4).toString('hex')}.part`);
    let bytes = 0;
    try {
      await this.withRetries('download', target, opts.signal, async () => {
        const got = await this.downloadOnce(target, tmp, opts);
        if (typeof got !== 'number') return got;
        await verified(tmp, got, opts.verify);
        bytes = got;
        return 'done';
      });
      await rename(tmp, destPath);
      this.cfg.logger.info('downloaded', { url: safeUrl(target), bytes, ...sizeHintNote(bytes, opts) });
      return { path: destPath, bytes };
    } catch (e) {
      await unlink(tmp).catch(() => {});
      throw e;
    }
  }

  /**
   * One attempt: a GET into `tmp`, and one to each address it is redirected to. The bytes written,
   * or the answer when it is not a success.
   */
  private async downloadOnce(first: URL, tmp: string, opts: DownloadOptions): Promise<number | FailedAnswer> {
    const file = await FileBatcher.create(tmp, DOWNLOAD_BATCH);
    try {
      const total = { value: opts.expectedSize };
      const progress = throttledProgress(opts.onProgress, () => total.value);
      const onHead = (length: number | undefined): void => {
        file.expectBytes(length ?? batchGuess(opts.expectedSize));
        total.value = length ?? opts.expectedSize;
        progress(0);
      };
      for (let url = first, hops = 0; ; hops++) {
        const got = await this.getInto(url, file, opts.signal, onHead, progress);
        if (DOWNLOAD_REDIRECTS.has(got.status)) {
          url = this.redirected('Download', url, got, hops);
          continue;
        }
        if (got.status < 200 || got.status >= 300)
          return { status: got.status, headers: got.headers, detail: errorDetailOf(got.errorBody ?? '') };
        progress(got.bytes, true);
        const coding = contentCoding(got.headers);
        if (!coding) return got.bytes;
        await file.close();
        return await decodeInPlace(tmp, coding, got.bytes);
      }
    } finally {
      await file.close().catch(() => {});
    }
  }

  /** One GET of one address into `file`; a failure once a success's head had come is answerFailure's. */
  private async getInto(
    url: URL,
    file: FileBatcher,
    signal: AbortSignal | undefined,
    onHead: (length: number | undefined) => void,
    onBytes: (n: number) => void,
  ): Promise<SocketGetResult> {
    let answered = false;
    try {
      return await socketGetToFile(url, file, {
        signal,
        idleTimeoutMs: this.cfg.idleTimeoutMs,
        onHead: (length) => {
          answered = true;
          onHead(length);
        },
        onBytes,
      });
    } catch (e) {
      if (e instanceof TransportError && (answered || e.code === 'EPROTO')) throw answerFailure(url, e);
      throw e;
    }
  }

  /** Where a redirect leads, checked (redirectTarget), and logged without the signature. */
  private redirected(
    label: 'Upload' | 'Download',
    from: URL,
    answer: { status: number; headers: IncomingHttpHeaders },
    hops: number,
  ): URL {
    const to = redirectTarget(label, from, answer, hops);
    this.cfg.logger.info('redirected', {
      call: label,
      status: answer.status,
      from: safeUrl(from),
      to: safeUrl(to),
    });
    return to;
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
        // 401 too: storage that takes no token answers a refused signature either way (a review's
        // 401 failed the job at once, advising a new one, while fresh addresses would have done).
        if (res.status === 403 || res.status === 401)
          throw new PresignedRefusedError(what, res.status, detail);
        if (res.status >= 300 && res.status < 400) throw redirectNotFollowed(what, res.status, detail);
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
 * A download's failure once the storage had answered (its body cut short, or framed in a way that
 * breaks HTTP): tried again within the attempts, then final. The same answer again and again is no
 * outage to wait out for hours; the job fails and says so. Failures before any answer stay network
 * errors (waited out).
 */
function answerFailure(url: URL, e: TransportError): Transient {
  const what = e.code === 'EPROTO' ? 'could not be read' : 'was cut off';
  return new Transient(
    new AppError(
      'service',
      `Download: the answer from ${url.host} ${what}: ${describeConnectionFailure(e)}.`,
      {
        action: 'Retry the job later; if it happens again, report it to the service operator.',
        retryable: false,
        cause: e,
      },
    ),
  );
}

/** opts.verify on the downloaded file; its refusal is worth another download (Transient), within the attempts. */
async function verified(path: string, bytes: number, verify: DownloadOptions['verify']): Promise<void> {
  try {
    await verify?.(path, bytes);
  } catch (e) {
    throw e instanceof AppError ? new Transient(e) : e;
  }
}

/**
 * The address a redirect leads to: refused when there is none, after MAX_REDIRECTS, from https to
 * anything else, or to an address parseTransportUrl refuses (plain http to another computer). User
 * name and password in it are dropped: the http module would send them as an Authorization header,
 * and pre-signed storage takes the signature in the address alone.
 */
function redirectTarget(
  label: 'Upload' | 'Download',
  from: URL,
  answer: { status: number; headers: IncomingHttpHeaders },
  hops: number,
): URL {
  const fail = (why: string): AppError =>
    new AppError('service', `${label}: storage redirected (${answer.status}) ${why}.`, {
      action: 'Report it to the service operator.',
    });
  const location = answer.headers.location;
  if (!location) throw fail('without saying where (no Location)');
  if (hops >= MAX_REDIRECTS)
    throw fail(`more than ${MAX_REDIRECTS} times; the last address was ${safeUrl(from)}`);
  let to: URL;
  try {
    to = new URL(location, from);
  } catch {
    throw fail('to an address that is not valid');
  }
  if (from.protocol === 'https:' && to.protocol !== 'https:')
    throw fail(`from https to ${safeUrl(to)}; an encrypted transfer is never continued unencrypted`);
  to.username = '';
  to.password = '';
  to.hash = '';
  return parseTransportUrl(to.href, `${label}: the address storage redirected to`);
}

/** A 3xx that is not followed: 300, 304, or one that would change an upload's method. */
function redirectNotFollowed(what: 'upload' | 'download', status: number, detail: string): AppError {
  const followed = what === 'upload' ? '307 and 308' : '301, 302, 303, 307 and 308';
  return new AppError(
    'service',
    `${what === 'upload' ? 'Upload' : 'Download'}: storage answered ${status}${detail}, a redirect not followed for ${what}s (only ${followed} are).`,
    { action: 'Report it to the service operator.' },
  );
}

/** The size of the write batches when the answer gives no length: from the hint, whatever its unit. */
function batchGuess(hint: number | undefined): number {
  return hint === undefined ? DOWNLOAD_BATCH : Math.max(MIN_GUESSED_BATCH, hint);
}

/** For the log: whether the service's size (unit unknown) matched the bytes. Either way the download stands. */
function sizeHintNote(bytes: number, opts: DownloadOptions): Record<string, number | boolean> {
  if (opts.expectedSize === undefined) return {};
  return opts.expectedSize === bytes ? { sizeConfirmed: true } : { announcedSize: opts.expectedSize };
}

/**
 * onProgress every PROGRESS_STEP bytes or every percent of the total, whichever is smaller (a small
 * file still shows progress), and at the end (`last`). The total is read when the answer's head came:
 * its Content-Length, else the service's size hint while the bytes have not passed it.
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
    const t = total();
    // The size hint may be in another unit than bytes: a total below the bytes so far is no total.
    const known = t !== undefined && t >= done ? t : undefined;
    if (done === 0)
      step = known ? Math.max(1, Math.min(PROGRESS_STEP, Math.floor(known / 100))) : PROGRESS_STEP;
    else if (known === undefined) step = PROGRESS_STEP;
    next = done + step;
    onProgress(done, known);
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
