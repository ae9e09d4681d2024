import http from 'node:http';
import https from 'node:https';
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, stat, unlink } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { isLoopbackHost } from '../../../src-shared/profiles.js';
import { PRIVATE_FILE_MODE } from '../../platform/private-files.js';
import { trustSystemCertificatesOnce } from '../../platform/system-trust.js';

/**
 * The engine's side of client-hosted transfers: inputs fetched from the client's pre-signed download
 * addresses, outputs put to its pre-signed upload addresses, and the finish webhook. Plain http only to
 * this computer, as everywhere else in the app.
 */
function target(raw: string): URL {
  const url = new URL(raw);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    throw new Error(`refused address ${url.origin}: https, or http to this computer only`);
  return url;
}

function request(url: URL, options: http.RequestOptions): http.ClientRequest {
  const secure = url.protocol === 'https:';
  if (secure) trustSystemCertificatesOnce();
  return (secure ? https : http).request(url, { ...options, timeout: 60_000 });
}

export async function fetchToFile(raw: string, dest: string): Promise<number> {
  const url = target(raw);
  const tmp = `${dest}.part`;
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = request(url, { method: 'GET' });
    req.on('response', resolve);
    req.on('timeout', () => req.destroy(new Error('no data for 60 s')));
    req.on('error', reject);
    req.end();
  });
  if (res.statusCode !== 200) {
    res.resume();
    throw new Error(`the input address answered ${res.statusCode}`);
  }
  try {
    // The patient's scan: private to the user from its first byte.
    await pipeline(res, createWriteStream(tmp, { mode: PRIVATE_FILE_MODE }));
    const size = (await stat(tmp)).size;
    const expected = res.headers['content-length'];
    if (expected !== undefined && Number(expected) !== size)
      throw new Error('the input download was cut off');
    await rename(tmp, dest);
    return size;
  } catch (e) {
    await unlink(tmp).catch(() => {});
    throw e;
  }
}

export async function putFile(raw: string, path: string): Promise<void> {
  const url = target(raw);
  const size = (await stat(path)).size;
  await new Promise<void>((resolve, reject) => {
    const req = request(url, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': size },
    });
    req.on('response', (res) => {
      res.resume();
      if (res.statusCode && res.statusCode >= 200 && res.statusCode < 300) resolve();
      else reject(new Error(`the output address answered ${res.statusCode}`));
    });
    req.on('timeout', () => req.destroy(new Error('no answer for 60 s')));
    req.on('error', reject);
    createReadStream(path).on('error', reject).pipe(req);
  });
}

export async function postJson(raw: string, value: unknown): Promise<void> {
  const url = target(raw);
  const body = Buffer.from(JSON.stringify(value));
  await new Promise<void>((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': body.length },
    });
    req.on('response', (res) => {
      res.resume();
      resolve();
    });
    req.on('timeout', () => req.destroy(new Error('no answer for 60 s')));
    req.on('error', reject);
    req.end(body);
  });
}
