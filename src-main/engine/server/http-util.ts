import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { setTimeout as delay } from 'node:timers/promises';

export interface BodyFaults {
  /** Cut the connection after half of the body. */
  drop?: boolean;
  /** Write the body at this speed. */
  bytesPerSecond?: number | undefined;
}

export class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A small request body (JSON), refused past `limit`. */
async function readSmallBody(req: IncomingMessage, limit = 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) throw new BodyError(413, `The body is larger than ${limit} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) throw new BodyError(415, 'Content-Type must be application/json.');
  const text = (await readSmallBody(req)).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BodyError(400, 'The body is not valid JSON.');
  }
}

/** Writes a whole answer, honouring the injected faults. */
export async function reply(
  res: ServerResponse,
  status: number,
  body: Buffer | string,
  contentType: string,
  headers: Record<string, string> = {},
  faults: BodyFaults = {},
): Promise<void> {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': String(buf.length), ...headers });
  if (faults.drop) {
    await writeChunk(res, buf.subarray(0, Math.floor(buf.length / 2)));
    res.socket?.destroy();
    return;
  }
  if (faults.bytesPerSecond) {
    await writeSlowly(res, buf, faults.bytesPerSecond);
    res.end();
    return;
  }
  res.end(buf);
}

export function replyJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
  faults: BodyFaults & { malformed?: boolean } = {},
): Promise<void> {
  let text = JSON.stringify(value);
  // Cut short, as a proxy that lost the end of an answer would deliver it.
  if (faults.malformed) text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  return reply(res, status, text, 'application/json; charset=utf-8', headers, faults);
}

/** An error answer in the shape storage services and the protocol use: `{ "message": … }`. */
export function replyError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): Promise<void> {
  return replyJson(res, status, { message }, headers);
}

/** Streams a file as the answer; the connection is cut halfway when the fault says so. */
export async function replyFile(
  res: ServerResponse,
  path: string,
  size: number,
  faults: BodyFaults,
): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(size) });
  if (!faults.drop && !faults.bytesPerSecond) {
    // The plain path: let streams do it, with no work per chunk.
    await pipeline(createReadStream(path, { highWaterMark: 1024 * 1024 }), res).catch(() => res.destroy());
    return;
  }
  const limit = faults.drop ? Math.floor(size / 2) : size;
  let sent = 0;
  const stream = createReadStream(path, {
    highWaterMark: 1024 * 1024,
    ...(faults.drop ? { end: limit - 1 } : {}),
  });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (res.destroyed) break;
      if (faults.bytesPerSecond) await writeSlowly(res, chunk, faults.bytesPerSecond);
      else await writeChunk(res, chunk);
      sent += chunk.length;
    }
  } finally {
    stream.destroy();
  }
  if (faults.drop || sent < size) res.socket?.destroy();
  else res.end();
}

function writeChunk(res: ServerResponse, chunk: Buffer): Promise<void> {
  if (chunk.length === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    if (res.write(chunk)) resolve();
    else {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.once('drain', done);
      res.once('close', done);
    }
  });
}

async function writeSlowly(res: ServerResponse, buf: Buffer, bytesPerSecond: number): Promise<void> {
  const tick = 50;
  const step = Math.max(1, Math.floor((bytesPerSecond * tick) / 1000));
  for (let i = 0; i < buf.length && !res.destroyed; i += step) {
    await writeChunk(res, buf.subarray(i, i + step));
    if (i + step < buf.length) await delay(tick);
  }
}
