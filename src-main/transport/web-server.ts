import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { join, normalize, resolve, sep, extname } from 'node:path';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import type { Core } from '../app/core.js';
import { SECURITY_HEADERS } from './security-headers.js';
import { checkEvent } from '../app/dispatch.js';
import { createStage, DEFAULT_STAGE_LIMITS, type StageLimits } from './web-stage.js';
import { formatBytes } from '../../src-shared/format-bytes.js';
import { HEARTBEAT_MS } from '../../src-shared/link-timing.js';

/** The only credential the server accepts; it is never put in a cookie or in an address the page fetches. */
const TOKEN_HEADER = 'x-scan2mesh-token';
const MAX_JSON_BYTES = 4 * 1024 * 1024;

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
};

/** Where web mode serves a file the core granted to the page (a finished mesh): see api() below. */
export const webFileUrl = (grantId: string): string => `/api/file/${grantId}`;

interface WebServerOptions {
  /** What the server carries: the contract's dispatcher, the core's events, and its grants. */
  core: Pick<Core, 'dispatch' | 'bus' | 'logger' | 'files' | 'scanGrants' | 'releaseDrops'>;
  /** The built renderer (dist/renderer). */
  rendererDir: string;
  port?: number;
  /** Fixed token for tests; random otherwise. */
  token?: string;
  /** Where files dropped in the browser are copied so the core can read them by path. */
  stagingDir?: string;
  /** Size caps of the stage; DEFAULT_STAGE_LIMITS (2 GiB per file, 20 GiB per drop) when absent. */
  stageLimits?: StageLimits;
  /** The free space of the stage's disk; statfs when absent (tests give a fixed figure). */
  stageFreeSpace?: (dir: string) => Promise<number>;
}

export interface RunningWebServer {
  /**
   * The address to open. The token is in its fragment, which a browser never sends to any server; the
   * page moves it to its own sessionStorage and sends it back only as the X-Scan2mesh-Token header.
   */
  url: string;
  origin: string;
  port: number;
  token: string;
  server: Server;
  /** The drop folders this session's page uploaded into. */
  stagedDrops(): string[];
  close(): Promise<void>;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function send(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

const JSON_TOO_LARGE = `The request is larger than the app accepts (at most ${formatBytes(MAX_JSON_BYTES)}). Files are added by dropping them or with "Add scans", never inside a request.`;

/** The body as JSON; null when it is over MAX_JSON_BYTES (the rest is left unread). */
async function readJson(req: IncomingMessage): Promise<{ value: unknown } | null> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_JSON_BYTES) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_JSON_BYTES) return null;
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return { value: text ? JSON.parse(text) : {} };
}

/**
 * Web mode: the built renderer and the contract on 127.0.0.1 only. Host and Origin must be this
 * server's own on every request, which stops DNS rebinding and cross-site requests from other pages.
 * A random session token guards everything under /api (calls, events, the stage, granted files), and
 * only as a request header: a browser keeps cookies per host, not per port, and would hand a cookie
 * to every other server on 127.0.0.1 it visits. The page's static files hold no patient data and are
 * served without the token, so that the page can load and say what to do when it has none.
 */
export async function startWebServer(opts: WebServerOptions): Promise<RunningWebServer> {
  const token = opts.token ?? randomBytes(32).toString('base64url');
  const rendererDir = resolve(opts.rendererDir);
  const stagingRoot = opts.stagingDir ?? join(tmpdir(), `scan2mesh-web-${process.pid}`);
  const logger = opts.core.logger.child('web');
  const sseClients = new Set<ServerResponse>();
  const stage = createStage({
    root: stagingRoot,
    limits: opts.stageLimits ?? DEFAULT_STAGE_LIMITS,
    grants: opts.core.scanGrants,
    send,
    ...(opts.stageFreeSpace ? { freeSpace: opts.stageFreeSpace } : {}),
  });
  let port = 0;

  const allowedHosts = (): string[] => [`127.0.0.1:${port}`, `localhost:${port}`];
  const allowedOrigins = (): string[] => allowedHosts().map((h) => `http://${h}`);

  const unsubscribe = opts.core.bus.subscribe((event, payload) => {
    const data = `event: message\ndata: ${JSON.stringify({ event, payload: checkEvent(event, payload) })}\n\n`;
    for (const c of sseClients) c.write(data);
  });

  // An SSE comment: the page's reader counts it as a sign of life and hands it to no listener. Not
  // logged (it would fill the log), and unref'd so that it never keeps the process alive.
  const heartbeat = setInterval(() => {
    for (const c of sseClients) c.write(': beat\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      logger.error('web request failed', { error: String(e) });
      if (!res.headersSent) send(res, 500, 'Internal error');
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = req.headers.host ?? '';
    if (!allowedHosts().includes(host)) return send(res, 403, 'Forbidden: unexpected Host header.');
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins().includes(origin))
      return send(res, 403, 'Forbidden: requests from other sites are refused.');
    // Only origin-form targets ("/path?query"). The base is fixed and the target appended as text, so
    // that "//other.host/x" stays a path here instead of naming another host.
    const target = req.url ?? '';
    if (!target.startsWith('/')) return send(res, 400, 'Bad request target');
    const url = new URL(`http://127.0.0.1${target}`);

    if (url.pathname === '/api' || url.pathname.startsWith('/api/')) {
      // Only the header counts: a cookie, a ?token= or anything else a browser adds on its own does not.
      const presented = req.headers[TOKEN_HEADER];
      if (typeof presented !== 'string' || !safeEqual(presented, token))
        return send(
          res,
          401,
          "Unauthorized: open the address that `scan2mesh web` printed; it carries this session's token.",
        );
      return api(req, res, url);
    }
    // A ?token= (an address from an older version) is not a credential: the page is served as it is
    // for any visitor, and the page itself says that the address is outdated. No redirect either.
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'Method not allowed');
    return staticFile(res, url.pathname);
  }

  async function api(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (url.pathname === '/api/events' && req.method === 'GET') {
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'Content-Type': 'text/event-stream',
        Connection: 'keep-alive',
      });
      res.write(': connected\n\n');
      sseClients.add(res);
      req.on('close', () => sseClients.delete(res));
      return;
    }
    const invoke = /^\/api\/invoke\/([a-zA-Z]+\.[a-zA-Z]+)$/.exec(url.pathname);
    if (invoke && req.method === 'POST') {
      if (!(req.headers['content-type'] ?? '').startsWith('application/json'))
        return send(res, 415, 'Content-Type must be application/json');
      let body: { value: unknown } | null;
      try {
        body = await readJson(req);
      } catch {
        return send(res, 400, 'The request body is not valid JSON.');
      }
      if (body === null) {
        res.setHeader('Connection', 'close');
        return send(res, 413, JSON_TOO_LARGE);
      }
      const envelope = await opts.core.dispatch(invoke[1] as string, body.value);
      return send(res, 200, JSON.stringify(envelope), 'application/json');
    }
    if (url.pathname === '/api/stage' && req.method === 'POST') return stage.post(req, res, url);
    if (url.pathname === '/api/stage' && req.method === 'GET') return stage.limits(res);
    if (url.pathname === '/api/stage' && req.method === 'DELETE') {
      // A copy of patient data nothing will read goes now, not when web mode stops.
      const dropDir = await stage.release(url.searchParams.get('drop') ?? '');
      if (!dropDir) return send(res, 404, 'No such drop in this session.');
      await opts.core.releaseDrops([dropDir]);
      // Still there (a job needs it, or it could not be removed): the session's end sees to it again.
      if (!existsSync(dropDir)) stage.forget(dropDir);
      return send(res, 200, 'released');
    }
    const file = /^\/api\/file\/([\w-]{16,64})$/.exec(url.pathname);
    if (file && req.method === 'GET') {
      const path = opts.core.files.resolve(file[1] as string);
      return path ? sendFile(res, path, 'application/octet-stream') : send(res, 404, 'Not found');
    }
    return send(res, 404, 'Not found');
  }

  function sendFile(res: ServerResponse, file: string, type: string): void {
    let size: number;
    try {
      const st = statSync(file);
      if (!st.isFile()) return send(res, 404, 'Not found');
      size = st.size;
    } catch {
      return send(res, 404, 'Not found');
    }
    res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': type, 'Content-Length': size });
    createReadStream(file).pipe(res);
  }

  function staticFile(res: ServerResponse, pathname: string): void {
    let rel: string;
    try {
      rel = decodeURIComponent(pathname);
    } catch {
      return send(res, 400, 'Bad path');
    }
    if (rel.endsWith('/')) rel += 'index.html';
    const file = normalize(join(rendererDir, rel));
    if (!file.startsWith(rendererDir + sep)) return send(res, 404, 'Not found');
    sendFile(res, file, MIME[extname(file)] ?? 'application/octet-stream');
  }

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, '127.0.0.1', () => ok());
  });
  port = (server.address() as AddressInfo).port;
  const originUrl = `http://127.0.0.1:${port}`;
  return {
    url: `${originUrl}/#token=${token}`,
    origin: originUrl,
    port,
    token,
    server,
    stagedDrops: () => stage.drops(),
    async close() {
      clearInterval(heartbeat);
      unsubscribe();
      for (const c of sseClients) c.end();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
