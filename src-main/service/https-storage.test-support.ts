import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { rename, stat, unlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Presigner } from '../engine/server/presign.js';

/**
 * FOR TESTS AND BENCHMARKS ONLY: pre-signed storage over https on loopback, as real services hand
 * out (S3 and the like), with a self-signed certificate made on the spot. The client must trust it
 * the way a user would: NODE_EXTRA_CA_CERTS naming the certificate, set before the process starts.
 */

export interface TlsFiles {
  keyPath: string;
  certPath: string;
}

/** A self-signed certificate for 127.0.0.1 (and localhost), made with the openssl command line. */
export function makeSelfSignedCertificate(dir: string): TlsFiles {
  const keyPath = join(dir, 'storage-key.pem');
  const certPath = join(dir, 'storage-cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=scan2mesh test storage',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ],
    { stdio: 'ignore' },
  );
  return { keyPath, certPath };
}

export interface HttpsStorage {
  origin: string;
  /** A pre-signed PUT address for the object `name`. */
  uploadUrl(name: string): string;
  /** A pre-signed GET address for the object `name`. */
  downloadUrl(name: string): string;
  /** Requests that came with an Authorization header (refused, as storage does): must stay 0. */
  readonly authHeaders: number;
  close(): Promise<void>;
}

/** Objects are files in `dir`; uploads land in a temporary file and are renamed when complete. */
export async function startHttpsStorage(opts: { dir: string; tls: TlsFiles }): Promise<HttpsStorage> {
  const presigner = new Presigner(randomBytes(32));
  let authHeaders = 0;
  const server: Server = createServer(
    { key: readFileSync(opts.tls.keyPath), cert: readFileSync(opts.tls.certPath), keepAliveTimeout: 30_000 },
    (req, res) => {
      const url = new URL(req.url ?? '/', 'https://storage');
      const name = /^\/objects\/([\w.-]+)$/.exec(url.pathname)?.[1];
      const reply = (status: number, text: string): void => {
        req.resume();
        res.writeHead(status, { 'Content-Type': 'text/plain', Connection: 'close' }).end(text);
      };
      if (req.headers.authorization !== undefined) {
        authHeaders++;
        return reply(400, 'Only one auth mechanism allowed');
      }
      if (!name || (req.method !== 'GET' && req.method !== 'PUT')) return reply(404, 'No such object.');
      const check = presigner.verify(req.method, url.pathname, url.searchParams);
      if (check !== 'ok') return reply(403, `Request refused: ${check}`);
      const path = join(opts.dir, name);
      if (req.method === 'GET') {
        stat(path).then(
          (s) => {
            // Objects named chunked-* go without a length, as chunks: the shape the socket path leaves
            // to the http module.
            res.writeHead(200, {
              'Content-Type': 'application/octet-stream',
              ...(name.startsWith('chunked-') ? {} : { 'Content-Length': s.size }),
            });
            pipeline(createReadStream(path, { highWaterMark: 1024 * 1024 }), res).catch(() => res.destroy());
          },
          () => reply(404, 'No such object.'),
        );
        return;
      }
      const length = Number(req.headers['content-length']);
      if (!Number.isInteger(length)) return reply(411, 'Content-Length is required.');
      const tmp = `${path}.${randomUUID()}.part`;
      const sink = createWriteStream(tmp, { highWaterMark: 1024 * 1024 });
      pipeline(req, sink).then(
        async () => {
          if (sink.bytesWritten !== length) {
            await unlink(tmp).catch(() => {});
            return reply(400, `Received ${sink.bytesWritten} of ${length} bytes.`);
          }
          await rename(tmp, path);
          res.writeHead(200).end();
        },
        () => unlink(tmp).catch(() => {}),
      );
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    uploadUrl: (name) => presigner.sign('PUT', origin, `/objects/${name}`, 3600),
    downloadUrl: (name) => presigner.sign('GET', origin, `/objects/${name}`, 3600),
    get authHeaders() {
      return authHeaders;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
