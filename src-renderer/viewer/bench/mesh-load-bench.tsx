/**
 * The page bench/mesh-load.bench.ts drives: the real ViewerScreen (its "Open mesh…" input, the
 * worker loader, chunked upload, first frame), and, with ?mode=anchor, a file input feeding
 * three's STLLoader on the main thread, drawn by a bare renderer. Both start when the bench
 * chooses a file. Not part of the app build; the bench builds it with the app's vite.config.ts.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import {
  Color,
  DirectionalLight,
  DoubleSide,
  HemisphereLight,
  Mesh,
  MeshPhongMaterial,
  PerspectiveCamera,
  Scene,
  WebGLRenderer,
} from 'three';
import type { BufferGeometry } from 'three';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { nextFrame } from '../frame-pacer.js';
import { isSoftwareRenderer } from '../gpu-info.js';
import { meshRegistry } from '../mesh-registry.js';
import { MARKS } from '../viewer-actions.js';
import type { AnchorResult, BenchWindow, ReadyResult, ViewerResult } from './bench-api.js';
import { useViewerStore } from '../viewer-store.js';
import { ViewerScreen } from '../ViewerScreen.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the page's additions to window
  interface Window extends BenchWindow {}
}

window.fileChosenAt = null;
// Capture phase on the document: runs before the viewer's own change handler.
document.addEventListener(
  'change',
  (e) => {
    if (e.target instanceof HTMLInputElement && e.target.type === 'file')
      window.fileChosenAt = performance.now();
  },
  true,
);

window.longTasks = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.longTasks.push({ start: e.startTime, duration: e.duration });
}).observe({ type: 'longtask', buffered: true });

window.heartbeats = [];
let lastBeat = performance.now();
setInterval(() => {
  const now = performance.now();
  window.heartbeats.push({ at: now, gap: now - lastBeat });
  lastBeat = now;
}, 10);

function geometryBytes(g: BufferGeometry): number {
  let n = g.index ? g.index.array.byteLength : 0;
  for (const a of Object.values(g.attributes)) n += a.array.byteLength;
  return n;
}

async function anchorLoad(file: File, start: number): Promise<AnchorResult> {
  const canvas = document.createElement('canvas');
  canvas.style.cssText = 'width:100%;height:100%;display:block';
  document.getElementById('root')!.append(canvas);
  // The same context settings as the viewer: only the loading differs.
  const renderer = new WebGLRenderer({
    canvas,
    antialias: !isSoftwareRenderer(),
    preserveDrawingBuffer: true,
  });
  renderer.setSize(canvas.clientWidth, canvas.clientHeight, false);
  renderer.setClearColor(new Color('#22262b'));
  const scene = new Scene();
  const camera = new PerspectiveCamera(30, canvas.clientWidth / canvas.clientHeight, 1, 10_000);
  camera.up.set(0, 0, 1);
  camera.add(new DirectionalLight(0xffffff, 2));
  scene.add(camera, new HemisphereLight(0xffffff, 0x606060, 1.3));

  const buffer = await file.arrayBuffer();
  const t0 = performance.now();
  const geometry = new STLLoader().parse(buffer);
  const t1 = performance.now();
  // What an app using STLLoader directly does next: bounds for framing, then draw.
  geometry.computeBoundingSphere();
  const sphere = geometry.boundingSphere!;
  camera.position.set(sphere.center.x, sphere.center.y - sphere.radius * 4, sphere.center.z);
  camera.lookAt(sphere.center);
  // The viewer's material settings, so that only the loading path differs.
  scene.add(
    new Mesh(
      geometry,
      new MeshPhongMaterial({ color: '#e3d7b8', specular: 0x1c1c1c, shininess: 24, side: DoubleSide }),
    ),
  );
  renderer.render(scene, camera);
  const t2 = performance.now();
  await nextFrame();
  await nextFrame();
  const t3 = performance.now();
  return {
    readMs: t0 - start,
    parseMs: t1 - t0,
    renderMs: t2 - t1,
    firstFrameMs: t3 - start,
    geometryBytes: geometryBytes(geometry),
    triangles: geometry.attributes.position!.count / 3,
    start,
    loaded: t1,
    presented: t3,
  };
}

let anchorResult: Promise<AnchorResult> | null = null;

function mountAnchorInput(): void {
  const input = document.createElement('input');
  input.type = 'file';
  input.id = 'anchor-file';
  input.setAttribute('aria-label', 'Mesh for STLLoader');
  input.addEventListener('change', () => {
    const file = input.files?.[0];
    if (file) anchorResult = anchorLoad(file, window.fileChosenAt ?? performance.now());
  });
  document.getElementById('root')!.append(input);
}

async function anchorFileShown(): Promise<AnchorResult> {
  while (!anchorResult) await nextFrame();
  return anchorResult;
}

function markTime(name: string): number | null {
  const m = performance.getEntriesByName(name, 'mark');
  return m.length > 0 ? m[m.length - 1]!.startTime : null;
}

async function viewerFileShown(name: string): Promise<ViewerResult> {
  for (;;) {
    await nextFrame();
    const state = useViewerStore.getState();
    const item = state.items.find((i) => i.name === name);
    const drawn = item ? markTime(MARKS.drawn(item.id)) : null;
    if (!item && state.loads.length === 0 && state.notices.length > 0) {
      throw new Error(state.notices[0]!.message);
    }
    if (!item || drawn === null) continue;
    // The frame with the mesh is on screen once the next frame begins; one more for margin.
    await nextFrame();
    await nextFrame();
    const presented = performance.now();
    const start = window.fileChosenAt!;
    const loaded = markTime(MARKS.loaded(item.id))!;
    const drawnMark = performance.getEntriesByName(MARKS.drawn(item.id), 'mark')[0] as PerformanceMark;
    const m = meshRegistry.get(item.id)!;
    return {
      name,
      timings: item.timings,
      loadMs: loaded - start,
      renderMs: (drawnMark.detail as { renderMs: number }).renderMs,
      firstFrameMs: presented - start,
      geometryBytes: m.positions.byteLength + m.normals.byteLength + m.index.byteLength,
      triangles: item.triangles,
      chunks: m.chunks.length,
      start,
      loaded,
      presented,
    };
  }
}

async function viewerReady(): Promise<ReadyResult> {
  for (;;) {
    const canvas = document.querySelector<HTMLCanvasElement>('[data-testid="viewer-canvas"]');
    if (canvas?.dataset.ready === 'true') break;
    await nextFrame();
  }
  const readyAt = performance.now();
  // Long task entries arrive after their task.
  await new Promise((r) => setTimeout(r, 100));
  return {
    readyAt,
    longestTaskMs: Math.max(0, ...window.longTasks.filter((t) => t.start < readyAt).map((t) => t.duration)),
  };
}

window.bench = { viewerReady, viewerFileShown, anchorFileShown };

if (new URLSearchParams(location.search).get('mode') === 'anchor') {
  mountAnchorInput();
} else {
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <ViewerScreen />
    </StrictMode>,
  );
}
