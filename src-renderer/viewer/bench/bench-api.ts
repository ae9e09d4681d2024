/**
 * What the benchmark page (mesh-load-bench.tsx) offers bench/mesh-load.bench.ts through `window`.
 * Free of DOM types, so the Node-side bench can import it.
 *
 * Both paths start when a file is chosen in an <input type="file"> (the bench sets its files
 * as a user would) and end when the frame showing the whole mesh is on screen.
 */
import type { LoadTimings } from '../mesh-loader-protocol.js';

export interface ViewerResult {
  name: string;
  /** Worker-side times: reading (a binary STL welded as it is read), parsing, welding, normals and chunks. */
  timings: LoadTimings;
  /** Main thread, from the file chosen: geometry in hand (the worker's result received). */
  loadMs: number;
  /** The longest render call while the mesh's chunks went to the GPU. */
  renderMs: number;
  /** From the file chosen to the frame with the whole mesh shown (two animation frames after its render). */
  firstFrameMs: number;
  geometryBytes: number;
  triangles: number;
  chunks: number;
  /** Page clock (performance.now): file chosen, geometry in hand, frame shown. */
  start: number;
  loaded: number;
  presented: number;
}

export interface AnchorResult {
  /** file.arrayBuffer() after the file was chosen. */
  readMs: number;
  parseMs: number;
  renderMs: number;
  firstFrameMs: number;
  geometryBytes: number;
  triangles: number;
  start: number;
  /** STLLoader.parse returned: the geometry is in hand. */
  loaded: number;
  presented: number;
}

/** The viewer from the page's start until it has warmed up (shaders, and on software, pipelines). */
export interface ReadyResult {
  /** Page clock: when the viewer was seen ready (checked once per animation frame). */
  readyAt: number;
  /** The longest main-thread task (over 50 ms) before it, 0 if none: page load and warm-up. */
  longestTaskMs: number;
}

interface BenchApi {
  /** Waits until the viewer is ready to draw a mesh without building pipelines first. */
  viewerReady(): Promise<ReadyResult>;
  /** After the bench chose a file in the viewer's own "Open mesh…" input: waits for its first full frame. */
  viewerFileShown(name: string): Promise<ViewerResult>;
  /** After the bench chose a file in the anchor's input: three's STLLoader on the main thread, one frame. */
  anchorFileShown(): Promise<AnchorResult>;
}

export interface BenchWindow {
  bench: BenchApi;
  /** When a file input last changed (page clock): the start of both paths. */
  fileChosenAt: number | null;
  /** Main-thread tasks over 50 ms (the Long Tasks API). */
  longTasks: { start: number; duration: number }[];
  /** Gaps between 10 ms heartbeats: finer than long tasks, which start at 50 ms. */
  heartbeats: { at: number; gap: number }[];
}
