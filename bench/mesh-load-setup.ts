// The mesh-load bench's inputs: the large mesh it loads (made by the local engine, reused while it is
// in bench/.out/), and the bench page, built with the app's vite.config.ts and served on loopback.
import {
  closeSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { readVolume } from '../src-main/scans/volume-reader.js';
import { isoSurfaceToFile } from '../src-main/engine/segmentation/iso-surface-file.test-support.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, '..');
const OUT = join(here, '.out');
const SERIES = join(ROOT, '..', 'shared', 'fixtures', 'dicom', 'ct-head-phantom-1mm');
const ISO_HU = 300;
export const MESH = join(OUT, `ct-head-phantom-iso${ISO_HU}.stl`);
const PAGE_DIR = join(OUT, 'mesh-load-page');
const MIN_TRIANGLES = 2_000_000;

function binaryStlTriangles(path: string): number | null {
  if (!existsSync(path)) return null;
  const fd = openSync(path, 'r');
  const head = Buffer.alloc(84);
  readSync(fd, head, 0, 84, 0);
  closeSync(fd);
  const n = head.readUInt32LE(80);
  return 84 + 50 * n === statSync(path).size ? n : null;
}

export async function makeMesh(): Promise<number> {
  const existing = binaryStlTriangles(MESH);
  if (existing !== null && existing >= MIN_TRIANGLES) {
    console.log(`mesh: ${MESH} (reused), ${existing.toLocaleString('en-US')} triangles`);
    return existing;
  }
  // On a fresh checkout bench/.out/ (ignored by git) does not exist yet.
  mkdirSync(OUT, { recursive: true });
  const t = performance.now();
  const volume = await readVolume(readdirSync(SERIES).map((f) => join(SERIES, f)));
  const written = await isoSurfaceToFile(volume, ISO_HU, MESH, { decimateMaxError: 0 });
  console.log(
    `mesh: ${MESH} made by the local engine from ${volume.dims.join(' x ')} voxels at ${ISO_HU} HU, no decimation: ` +
      `${written.triangles.toLocaleString('en-US')} triangles, ${(written.bytes / 1e6).toFixed(0)} MB in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  if (written.triangles < MIN_TRIANGLES)
    throw new Error(`the mesh has fewer than ${MIN_TRIANGLES} triangles`);
  return written.triangles;
}

export async function buildPage(): Promise<string> {
  const t = performance.now();
  await build({
    configFile: join(ROOT, 'vite.config.ts'),
    root: join(ROOT, 'src-renderer'),
    logLevel: 'warn',
    build: {
      outDir: PAGE_DIR,
      emptyOutDir: true,
      sourcemap: false,
      rollupOptions: { input: join(ROOT, 'src-renderer', 'viewer', 'bench', 'mesh-load-bench.html') },
    },
  });
  console.log(`page: built into ${PAGE_DIR} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return 'viewer/bench/mesh-load-bench.html';
}

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
};

/** The built page on loopback; the meshes reach the page through its file inputs. */
export async function serve(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
    const file = normalize(join(PAGE_DIR, path));
    if (!file.startsWith(PAGE_DIR + sep)) return void res.writeHead(403).end();
    if (!existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404).end();
    res.writeHead(200, {
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Length': statSync(file).size,
    });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
