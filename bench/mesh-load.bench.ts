// Loading a binary STL of over 2 million triangles in Chromium: the viewer's loader (three's
// STLLoader in a Web Worker, vertices welded there, buffers transferred) against three's STLLoader
// on the main thread, in the same run, on the same file.
//
// The mesh is the local engine's iso-surface of the fixture CT series at 300 HU (bone), written
// without decimation by isoSurfaceToFile into bench/.out/ (reused while it is there). The page is
// src-renderer/viewer/bench/mesh-load-bench.html, built with the app's vite.config.ts: it mounts
// the real ViewerScreen, which gets the mesh as the shell hands it a job output.
//
// Each measurement gets a fresh browser, so one path's garbage and caches cannot flatter or
// burden the other, and the renderer process's peak RSS belongs to one load only.
import {
  existsSync,
  openSync,
  readSync,
  closeSync,
  readdirSync,
  statSync,
  readFileSync,
  createReadStream,
} from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import type { Browser, Page } from '@playwright/test';
import { build } from 'vite';
import { CHROMIUM_ARGS, chromiumPath } from '../e2e/chromium.js';
import { readVolume } from '../src-main/scans/volume-reader.js';
import { isoSurfaceToFile } from '../src-main/engine/segmentation/iso-surface-file.js';
import type { AnchorResult, BenchWindow, ViewerResult } from '../src-renderer/viewer/bench/bench-api.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, '..');
const OUT = join(here, '.out');
const SERIES = join(ROOT, '..', 'shared', 'fixtures', 'dicom', 'ct-head-phantom-1mm');
const ISO_HU = 300;
const MESH = join(OUT, `ct-head-phantom-iso${ISO_HU}.stl`);
const PAGE_DIR = join(OUT, 'mesh-load-page');
const MIN_TRIANGLES = 2_000_000;
const ROUNDS = Number(process.argv[2] ?? 3);

function binaryStlTriangles(path: string): number | null {
  if (!existsSync(path)) return null;
  const fd = openSync(path, 'r');
  const head = Buffer.alloc(84);
  readSync(fd, head, 0, 84, 0);
  closeSync(fd);
  const n = head.readUInt32LE(80);
  return 84 + 50 * n === statSync(path).size ? n : null;
}

async function makeMesh(): Promise<number> {
  const existing = binaryStlTriangles(MESH);
  if (existing !== null && existing >= MIN_TRIANGLES) {
    console.log(`mesh: ${MESH} (reused), ${existing.toLocaleString('en-US')} triangles`);
    return existing;
  }
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

async function buildPage(): Promise<string> {
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

/** The built page and the mesh on loopback; the mesh is streamed, so a 115 MB file costs no memory here. */
async function serve(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
    const file = path === '/mesh.stl' ? MESH : normalize(join(PAGE_DIR, path));
    if (file !== MESH && !file.startsWith(PAGE_DIR + sep)) return void res.writeHead(403).end();
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

interface Blocking {
  /** Longest part of a long task (over 50 ms) inside the window. */
  longestTaskMs: number;
  /** Longest gap between 10 ms heartbeats, clipped to the window: catches blocks under 50 ms too. */
  maxGapMs: number;
}

interface Sample {
  /** While the mesh loads: from the start to the geometry in hand on the main thread. */
  loading: Blocking;
  /** From the geometry in hand to the first frame on screen. */
  firstFrame: Blocking;
  rendererPeakRssMB: number;
}

async function rendererPeakRssMB(browser: Browser): Promise<number> {
  const cdp = await browser.newBrowserCDPSession();
  const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as {
    processInfo: { type: string; id: number }[];
  };
  let peak = 0;
  for (const p of processInfo.filter((p) => p.type === 'renderer')) {
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.id}/status`, 'utf8'));
      if (hwm) peak = Math.max(peak, Number(hwm[1]) / 1024);
    } catch {
      // The process ended in between; it was not the page's.
    }
  }
  return peak;
}

/**
 * Main-thread blocking within [start, end] on the page's clock: each task or heartbeat gap counts
 * only with its part inside the window, so a block that begins as the load ends is not charged to it.
 */
async function blocking(page: Page, start: number, end: number): Promise<Blocking> {
  // Long task entries arrive after the task; give them time to be delivered.
  await page.waitForTimeout(300);
  return page.evaluate(
    ([s, e]) => {
      // No named helpers in here: tsx would wrap them in a __name() the page does not have.
      const w = globalThis as unknown as BenchWindow;
      return {
        longestTaskMs: Math.max(
          0,
          ...w.longTasks.map((t) => Math.min(t.start + t.duration, e) - Math.max(t.start, s)),
        ),
        maxGapMs: Math.max(0, ...w.heartbeats.map((h) => Math.min(h.at, e) - Math.max(h.at - h.gap, s))),
      };
    },
    [start, end] as const,
  );
}

async function withPage<T>(
  origin: string,
  pagePath: string,
  query: string,
  fn: (page: Page, browser: Browser) => Promise<T>,
): Promise<T> {
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${origin}/${pagePath}${query}`);
    await page.waitForFunction(
      () => typeof (globalThis as unknown as Partial<BenchWindow>).bench === 'object',
    );
    const result = await fn(page, browser);
    if (errors.length > 0) throw new Error(`page errors: ${errors.join('; ')}`);
    return result;
  } finally {
    await browser.close();
  }
}

const median = (v: number[]): number => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const ms = (v: number): string => `${v.toFixed(0)} ms`;
const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MB`;

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  console.log(
    `machine: ${cpus().length} cores, load average ${loadBefore.toFixed(1)} (timings stretch with it; memory does not)`,
  );
  const triangles = await makeMesh();
  const pagePath = await buildPage();
  const { server, origin } = await serve();
  const viewer: (ViewerResult & Sample)[] = [];
  const anchor: (AnchorResult & Sample)[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const v = await withPage(origin, pagePath, '', async (page, browser) => {
        const r = await page.evaluate(() =>
          (globalThis as unknown as BenchWindow).bench.viewerLoad('/mesh.stl', 'bench'),
        );
        return {
          ...r,
          loading: await blocking(page, r.start, r.loaded),
          firstFrame: await blocking(page, r.loaded, r.presented),
          rendererPeakRssMB: await rendererPeakRssMB(browser),
        };
      });
      viewer.push(v);
      const a = await withPage(origin, pagePath, '?mode=anchor', async (page, browser) => {
        const r = await page.evaluate(() =>
          (globalThis as unknown as BenchWindow).bench.anchorLoad('/mesh.stl'),
        );
        return {
          ...r,
          loading: await blocking(page, r.start, r.loaded),
          firstFrame: await blocking(page, r.loaded, r.presented),
          rendererPeakRssMB: await rendererPeakRssMB(browser),
        };
      });
      anchor.push(a);
      const wp = v.timings.parseMs + v.timings.weldMs + v.timings.normalsMs;
      console.log(
        `round ${round}: viewer: worker ${ms(wp)} (STLLoader ${ms(v.timings.parseMs)} + weld ${ms(v.timings.weldMs)} + normals ${ms(v.timings.normalsMs)}), ` +
          `in hand ${ms(v.loadMs)}, render call ${ms(v.renderMs)}, on screen ${ms(v.firstFrameMs)}, ` +
          `longest task ${ms(v.loading.longestTaskMs)} while loading (heartbeat gap ${ms(v.loading.maxGapMs)}), ${ms(v.firstFrame.longestTaskMs)} for the first frame | ` +
          `STLLoader: parse ${ms(a.parseMs)}, render call ${ms(a.renderMs)}, on screen ${ms(a.firstFrameMs)}, ` +
          `longest task ${ms(a.loading.longestTaskMs)} while loading, ${ms(a.firstFrame.longestTaskMs)} for the first frame`,
      );
    }
  } finally {
    server.close();
  }

  const m = <T>(list: T[], f: (x: T) => number): number => median(list.map(f));
  const max = <T>(list: T[], f: (x: T) => number): number => Math.max(...list.map(f));
  const vParse = m(viewer, (v) => v.timings.parseMs + v.timings.weldMs + v.timings.normalsMs);
  const vStl = m(viewer, (v) => v.timings.parseMs);
  const vWeld = m(viewer, (v) => v.timings.weldMs);
  const vNormals = m(viewer, (v) => v.timings.normalsMs);
  const vLoad = m(viewer, (v) => v.loadMs);
  const vRender = m(viewer, (v) => v.renderMs);
  const vFrame = m(viewer, (v) => v.firstFrameMs);
  const vLoadingTask = max(viewer, (v) => v.loading.longestTaskMs);
  const vLoadingGap = max(viewer, (v) => v.loading.maxGapMs);
  const vFrameTask = max(viewer, (v) => v.firstFrame.longestTaskMs);
  const vBytes = viewer[0]!.geometryBytes;
  const vRss = max(viewer, (v) => v.rendererPeakRssMB);
  const aParse = m(anchor, (a) => a.parseMs);
  const aRender = m(anchor, (a) => a.renderMs);
  const aFrame = m(anchor, (a) => a.firstFrameMs);
  const aLoadingTask = max(anchor, (a) => a.loading.longestTaskMs);
  const aFrameTask = max(anchor, (a) => a.firstFrame.longestTaskMs);
  const aBytes = anchor[0]!.geometryBytes;
  const aRss = max(anchor, (a) => a.rendererPeakRssMB);
  const memoryRatio = vBytes / aBytes;

  console.log(
    `mesh: ${triangles.toLocaleString('en-US')} triangles, binary STL; times are medians of ${ROUNDS} rounds, blocking is the worst round`,
  );
  console.log(
    `parse: viewer ${ms(vParse)} in its worker (three's STLLoader ${ms(vStl)}, welding ${ms(vWeld)}, normals ${ms(vNormals)}) ` +
      `vs three's STLLoader ${ms(aParse)} on the main thread`,
  );
  console.log(
    `geometry memory: viewer ${mb(vBytes)} (welded, indexed) vs STLLoader ${mb(aBytes)} = ${(memoryRatio * 100).toFixed(0)}% ` +
      `(goal: at most 50%) -> ${memoryRatio <= 0.5 ? 'met' : 'NOT met'}`,
  );
  console.log(
    `longest main-thread task while loading: viewer ${vLoadingTask > 0 ? ms(vLoadingTask) : 'none over 50 ms'} vs STLLoader ${ms(aLoadingTask)} ` +
      `(goal: under 100 ms) -> ${vLoadingTask < 100 ? 'met' : 'NOT met'}; ` +
      `longest gap between 10 ms heartbeats ${ms(vLoadingGap)} (includes the OS not scheduling the thread on a busy machine)`,
  );
  console.log(
    `first frame on screen: viewer ${ms(vFrame)} from the start (geometry in hand ${ms(vLoad)}, render call ${ms(vRender)}) ` +
      `vs STLLoader ${ms(aFrame)} (render call ${ms(aRender)})`,
  );
  console.log(
    `longest main-thread task for that first frame: viewer ${ms(vFrameTask)} vs STLLoader ${ms(aFrameTask)} ` +
      `(software compositing reads the canvas back, waiting for SwiftShader to rasterize every triangle)`,
  );
  console.log(`renderer process peak RSS: viewer ${vRss.toFixed(0)} MB vs STLLoader ${aRss.toFixed(0)} MB`);
  console.log(
    JSON.stringify({
      bench: 'mesh-load',
      triangles,
      cores: cpus().length,
      loadAverage: Number(loadBefore.toFixed(1)),
      rounds: ROUNDS,
      viewerParseMs: Math.round(vParse),
      viewerStlLoaderInWorkerMs: Math.round(vStl),
      viewerWeldMs: Math.round(vWeld),
      viewerNormalsMs: Math.round(vNormals),
      stlLoaderParseMs: Math.round(aParse),
      viewerGeometryBytes: vBytes,
      stlLoaderGeometryBytes: aBytes,
      memoryRatio: Number(memoryRatio.toFixed(3)),
      viewerLongestTaskWhileLoadingMs: Math.round(vLoadingTask),
      viewerMaxHeartbeatGapWhileLoadingMs: Math.round(vLoadingGap),
      stlLoaderLongestTaskWhileLoadingMs: Math.round(aLoadingTask),
      viewerGeometryInHandMs: Math.round(vLoad),
      viewerRenderCallMs: Math.round(vRender),
      viewerFirstFrameMs: Math.round(vFrame),
      stlLoaderRenderCallMs: Math.round(aRender),
      stlLoaderFirstFrameMs: Math.round(aFrame),
      viewerFirstFrameLongestTaskMs: Math.round(vFrameTask),
      stlLoaderFirstFrameLongestTaskMs: Math.round(aFrameTask),
      viewerRendererPeakRssMB: Math.round(vRss),
      stlLoaderRendererPeakRssMB: Math.round(aRss),
    }),
  );
}

main().then(
  // The engine's worker pool may keep the event loop alive; the bench is done.
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
