import { createWriteStream } from 'node:fs';
import { rename, stat, unlink } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { PRIVATE_FILE_MODE } from '../../platform/private-files.js';
import type { FaultInjector } from './faults.js';
import { reply, replyError, replyFile } from './http-util.js';
import type { JobStore } from './job-store.js';
import type { Presigner } from './presign.js';

interface StorageDeps {
  store: JobStore;
  presigner: Presigner;
  faults: FaultInjector;
  stats: { uploads: number; downloads: number };
}

/**
 * The storage side of the protocol (service-interface.md §5): inputs PUT to and meshes fetched from
 * pre-signed addresses, which carry their own signature and never a bearer token.
 */
export class StorageEndpoints {
  constructor(private readonly deps: StorageDeps) {}

  async upload(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    jobId: string,
    inputName: string,
  ): Promise<void> {
    const check = this.deps.presigner.verify('PUT', url.pathname, url.searchParams);
    if (check !== 'ok') return this.refused(res, check);
    const job = this.deps.store.get(jobId);
    const input = job?.inputs.find((i) => i.name === inputName && !i.downloadUrl);
    if (!job || !input) return replyError(res, 404, 'No such upload.', { Connection: 'close' });
    if (job.state !== 'awaiting-input')
      return replyError(res, 409, 'The job is no longer awaiting input.', { Connection: 'close' });
    const lengthHeader = req.headers['content-length'];
    if (lengthHeader === undefined || !/^\d+$/.test(lengthHeader))
      return replyError(res, 411, 'Content-Length is required.', { Connection: 'close' });
    const length = Number(lengthHeader);
    const drop = this.deps.faults.takeDrop('upload');
    const tmp = `${input.path}.${randomUUID()}.part`;
    let received = 0;
    // The patient's scan: private to the user from its first byte.
    const sink = createWriteStream(tmp, { highWaterMark: 1024 * 1024, mode: PRIVATE_FILE_MODE });
    try {
      if (drop) {
        const counter = new Transform({
          transform(chunk: Buffer, _enc, done) {
            received += chunk.length;
            if (received < length / 2) return done(null, chunk);
            // Injected fault: the connection dies halfway through the upload.
            req.socket.destroy();
            done(new Error('dropped'));
          },
        });
        await pipeline(req, counter, sink);
      } else {
        await pipeline(req, sink);
        received = sink.bytesWritten;
      }
    } catch {
      await unlink(tmp).catch(() => {});
      if (!res.destroyed) req.socket.destroy();
      return;
    }
    if (received !== length) {
      await unlink(tmp).catch(() => {});
      return replyError(res, 400, `Received ${received} of ${length} bytes.`);
    }
    await rename(tmp, input.path);
    input.uploaded = true;
    // A new upload needs its own notify before processing may start.
    input.notified = false;
    await this.deps.store.save(job);
    this.deps.stats.uploads++;
    return reply(res, 200, '', 'text/plain', { ETag: `"${jobId}-${received}"` });
  }

  async download(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    jobId: string,
    index: number,
  ): Promise<void> {
    const check = this.deps.presigner.verify('GET', url.pathname, url.searchParams);
    if (check !== 'ok') return this.refused(res, check);
    const mesh = this.deps.store.get(jobId)?.meshes[index];
    if (!mesh?.path) return replyError(res, 404, 'No such output.');
    const size = (await stat(mesh.path)).size;
    this.deps.stats.downloads++;
    req.resume();
    return replyFile(res, mesh.path, size, this.deps.faults.bodyFaults('download'));
  }

  private refused(res: ServerResponse, check: string): Promise<void> {
    const message =
      check === 'expired'
        ? 'Request has expired'
        : check === 'missing'
          ? 'Query-string authentication requires the signature and expiry parameters'
          : 'The request signature we calculated does not match the signature you provided';
    return replyError(res, 403, message, { Connection: 'close' });
  }
}
