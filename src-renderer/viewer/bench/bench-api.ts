/**
 * What the benchmark page (mesh-load-bench.tsx) offers bench/mesh-load.bench.ts through `window`.
 * Free of DOM types, so the Node-side bench can import it.
 */
import type { LoadTimings } from '../mesh-loader-protocol.js';

export interface ViewerResult {
  /** Worker-side times: three's STLLoader, welding, normals. */
  timings: LoadTimings;
  /** Main thread, from the start of the load: geometry in hand (the load proper ends here). */
  loadMs: number;
  /** The render call that first draws the mesh: buffer upload and draw calls. */
  renderMs: number;
  /** From the start of the load to the frame shown on screen (two animation frames after the render). */
  firstFrameMs: number;
  geometryBytes: number;
  triangles: number;
  /** Page clock (performance.now) at the start, when the geometry was in hand, and when the frame was shown. */
  start: number;
  loaded: number;
  presented: number;
}

export interface AnchorResult {
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

export interface BenchApi {
  /** Fetches the file (not timed), hands it to the viewer as a job output is handed, waits for its first frame. */
  viewerLoad(url: string, id: string): Promise<ViewerResult>;
  /** Fetches the file (not timed), then three's STLLoader on the main thread and one frame by a bare renderer. */
  anchorLoad(url: string): Promise<AnchorResult>;
}

export interface BenchWindow {
  bench: BenchApi;
  /** Main-thread tasks over 50 ms (the Long Tasks API). */
  longTasks: { start: number; duration: number }[];
  /** Gaps between 10 ms heartbeats: finer than long tasks, which start at 50 ms. */
  heartbeats: { at: number; gap: number }[];
}
