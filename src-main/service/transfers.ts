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
import {
  DOWNLOAD_REDIRECTS,
  redirectNotFollowed,
  redirectTarget,
  UPLOAD_REDIRECTS,
} from './storage-redirects.js';
import { batchGuess, DOWNLOAD_BATCH, sizeHintNote, throttledProgress } from './download-progress.js';
import {
  fileTotal,
  firstAnswer,
  rangeHeaders,
  resumeAfterCut,
  resumedAnswer,
  resumeValidator,
  type FileVersion,
  type ResumePoint,
} from './download-resume.js';

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
    /** The file as the storage last described it, and where a later attempt goes on from. */
    const known: FileVersion = {};
    let resume: ResumePoint | undefined;
    try {
      await this.withRetries('download', target, opts.signal, async () => {
        let got;
        try {
          got = await this.downloadOnce(target, tmp, opts, resume, known);
        } catch (e) {
          // Cut off (or never answered): the next attempt goes on from the bytes on disk.
          resume = await resumeAfterCut(tmp, known, (data) =>
            this.cfg.logger.info('download cut off', { url: safeUrl(target), ...data }),
          );
          throw e;
        }
        if (typeof got !== 'number') return got;
        // A whole file that is not usable is made again from the start.
        resume = undefined;
        await verified(tmp, got, opts.verify);
        bytes = got;
        return 'done';
      });
      await rename(tmp, destPath);
      this.cfg.logger.info('downloaded', {
        url: safeUrl(target),
        bytes,
        ...sizeHintNote(bytes, opts.expectedSize),
      });
      return { path: destPath, bytes };
    } catch (e) {
      await unlink(tmp).catch(() => {});
      throw e;
    }
  }

  /**
   * One attempt: a GET into `tmp`, and one to each address it is redirected to; with `resume`, of the
   * rest of the file, else (or when the storage answers the range otherwise) of the whole file. The
   * bytes of the file, or the answer when it is not a success.
   */
  private async downloadOnce(
    first: URL,
    tmp: string,
    opts: DownloadOptions,
    resume: ResumePoint | undefined,
    known: FileVersion,
  ): Promise<number | FailedAnswer> {
    const file = await FileBatcher.create(tmp, DOWNLOAD_BATCH, undefined, resume?.have);
    let base = resume?.have ?? 0;
    /** The storage answered the range with another part, or another version. */
    let refused = false;
    const whole = async (why: string): Promise<number | FailedAnswer> => {
      await file.close();
      this.cfg.logger.info('download taken whole', { url: safeUrl(first), why });
      return this.downloadOnce(first, tmp, opts, undefined, known);
    };
    try {
      const total = { value: opts.expectedSize };
      const progress = throttledProgress(opts.onProgress, () => total.value);
      const onHead = (length: number | undefined, status: number, headers: IncomingHttpHeaders): boolean => {
        const how = resume ? resumedAnswer(resume, status, headers) : firstAnswer(status, headers);
        if (how === 'other') return !(refused = true);
        if (how === 'whole') {
          if (base > 0) file.startAt(0);
          base = 0;
          known.validator = resumeValidator(headers);
          known.total = fileTotal(status, headers, length);
        }
        file.expectBytes(length ?? batchGuess(opts.expectedSize));
        total.value = fileTotal(status, headers, length) ?? opts.expectedSize;
        progress(base);
        return true;
      };
      const headers = resume ? rangeHeaders(resume) : undefined;
      for (let url = first, hops = 0; ; hops++) {
        let got;
        try {
          got = await this.getInto(url, file, opts.signal, onHead, (n) => progress(base + n), headers);
        } catch (e) {
          if (refused && resume)
            return await whole('the storage answered the range with another part of the file');
          throw e;
        }
        if (DOWNLOAD_REDIRECTS.has(got.status)) {
          url = this.redirected('Download', url, got, hops);
          continue;
        }
        // The storage has no such range (the file is shorter now): the whole file, within this attempt.
        if (got.status === 416 && resume) return await whole('the storage has no such range (416)');
        if (got.status < 200 || got.status >= 300)
          return { status: got.status, headers: got.headers, detail: errorDetailOf(got.errorBody ?? '') };
        const end = total.value;
        // A 206 ends where its Content-Range says the file does: short, it was cut off (asked for
        // again from there); long, it is no part of that file (the whole file, asked for again).
        const over = got.status === 206 && end !== undefined && base + got.bytes > end;
        if (over && resume) return await whole('the storage sent more than its range holds');
        if (got.status === 206 && base + got.bytes !== end)
          throw answerFailure(
            url,
            new TransportError(
              over
                ? `the storage sent ${base + got.bytes} bytes of a file of ${end}`
                : `the download ended after ${base + got.bytes} of ${end} bytes`,
              true,
              over ? 'EPROTO' : 'ECONNRESET',
            ),
          );
        progress(base + got.bytes, true);
        const coding = contentCoding(got.headers);
        if (!coding) return base + got.bytes;
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
    onHead: (length: number | undefined, status: number, headers: IncomingHttpHeaders) => boolean,
    onBytes: (n: number) => void,
    headers: Record<string, string> | undefined,
  ): Promise<SocketGetResult> {
    let answered = false;
    try {
      return await socketGetToFile(url, file, {
        signal,
        idleTimeoutMs: this.cfg.idleTimeoutMs,
        onHead: (length, status, answerHeaders) => {
          answered = true;
          return onHead(length, status, answerHeaders);
        },
        onBytes,
        ...(headers ? { headers } : {}),
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
