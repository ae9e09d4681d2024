/**
 * Reads, parses (three's loaders), welds and computes normals for one mesh, so the window never
 * freezes on a large file. The result's arrays are transferred back, not copied.
 */
import { AppError, isAppError } from '../../src-shared/errors.js';
import { checkFileSize, checkTriangleBudget } from './mesh-budget.js';
import { HEADER_BYTES } from './mesh-format.js';
import type { LoadRequest, LoadStage, LoadTimings, WorkerMessage } from './mesh-loader-protocol.js';
import {
  describeParseFailure,
  inspectMeshHeader,
  isAllocationFailure,
  parseMesh,
  tooLargeForMemory,
} from './mesh-parse.js';
import { chunkMesh } from './mesh-chunks.js';
import { weldBinaryStl } from './formats/stl-stream.js';
import { buildIndexedMesh, indexedMeshOf, type IndexedMesh } from './weld.js';

function post(message: WorkerMessage, transfer: Transferable[] = []): void {
  self.postMessage(message, { transfer });
}

let lastProgress = 0;
function progress(stage: LoadStage, fraction: number): void {
  // Posting every chunk of a 1 GB file would flood the main thread; ~20 updates a second suffice.
  const now = performance.now();
  if (fraction < 1 && fraction > 0 && now - lastProgress < 50) return;
  lastProgress = now;
  post({ type: 'progress', stage, fraction });
}

async function readBlob(blob: Blob): Promise<ArrayBuffer> {
  const bytes = new Uint8Array(blob.size);
  const reader = blob.stream().getReader();
  let at = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (at + value.length > bytes.length)
      throw new AppError('bad-input', 'The file grew while it was being read.');
    bytes.set(value, at);
    at += value.length;
    progress('read', at / bytes.length);
  }
  if (at !== bytes.length) {
    throw new AppError('bad-input', 'The file changed while it was being read.', {
      action: 'Open it again.',
    });
  }
  return bytes.buffer;
}

const noTriangles = (name: string): AppError =>
  new AppError('bad-input', `${name} contains no triangles.`, {
    action: 'Open a file that holds a surface mesh; check the export settings of the program that wrote it.',
  });

async function load(req: LoadRequest): Promise<void> {
  const t0 = performance.now();
  const size = req.source instanceof Blob ? req.source.size : req.source.byteLength;
  const head =
    req.source instanceof Blob
      ? new Uint8Array(await req.source.slice(0, HEADER_BYTES).arrayBuffer())
      : new Uint8Array(req.source, 0, Math.min(HEADER_BYTES, size));
  // What the file is not comes first: 2 GB of zeros is no mesh, not a mesh too large to read.
  const facts = inspectMeshHeader(req.name, req.format, head, size);
  checkFileSize(req.name, size, req.budget);
  checkTriangleBudget(req.name, facts, req.budget);
  if (facts.exact && facts.triangles === 0) throw noTriangles(req.name);

  progress('read', 0);
  let timings: Omit<LoadTimings, 'normalsMs' | 'totalMs'>;
  let t3: number;
  let welded: IndexedMesh;
  if (req.format === 'stl' && facts.exact && req.source instanceof Blob) {
    // A binary STL (its size fits its triangle count) is welded as it is read.
    // Up to the last triangle: some exporters pad the file with a few bytes after it.
    const bytes = 84 + 50 * facts.triangles;
    const stl = await weldBinaryStl(req.source.slice(0, bytes).stream(), facts.triangles, (n) =>
      progress('read', n / bytes),
    );
    t3 = performance.now();
    timings = { readMs: t3 - t0, parseMs: 0, weldMs: stl.weldMs };
    welded = indexedMeshOf(stl, (f) => progress('normals', f));
  } else {
    const buffer = req.source instanceof Blob ? await readBlob(req.source) : req.source;
    const t1 = performance.now();
    progress('parse', 0);
    const parsed = await parseMesh(req.name, req.format, buffer, {
      onProgress: (f) => progress('parse', f),
      // Before a reader takes memory for triangles it has counted (an OBJ's polygons, a PLY's fans).
      checkTriangles: (triangles, vertices) =>
        checkTriangleBudget(req.name, { triangles, vertices, exact: true }, req.budget),
    });
    const corners = parsed.index ? parsed.index.length : parsed.positions.length / 3;
    if (corners === 0) throw noTriangles(req.name);
    const vertices = parsed.index ? parsed.positions.length / 3 : 0;
    checkTriangleBudget(req.name, { triangles: Math.floor(corners / 3), vertices, exact: true }, req.budget);
    const t2 = performance.now();
    t3 = t2;
    welded = buildIndexedMesh(parsed.positions, parsed.index, (stage, fraction) => {
      if (stage === 'normals' && fraction === 0) t3 = performance.now();
      progress(stage, fraction);
    });
    timings = { readMs: t1 - t0, parseMs: t2 - t1, weldMs: t3 - t2 };
  }
  // Chunks for an upload spread over frames: the main thread only wraps these arrays.
  const mesh = chunkMesh(welded);
  const t4 = performance.now();
  post(
    {
      type: 'done',
      mesh,
      timings: { ...timings, normalsMs: t4 - t3, totalMs: t4 - t0 },
    },
    [mesh.positions.buffer, mesh.normals.buffer, mesh.index.buffer],
  );
}

self.onmessage = (event: MessageEvent<LoadRequest>) => {
  const req = event.data;
  load(req).catch((e: unknown) => {
    const error = isAppError(e)
      ? e
      : isAllocationFailure(e)
        ? tooLargeForMemory(req.name, e)
        : describeParseFailure(req.name, req.format, e);
    const shape = error.toShape();
    // Messages from inside the weld do not know the file's name.
    if (!shape.message.includes(req.name)) shape.message = `${req.name}: ${shape.message}`;
    post({ type: 'error', error: shape });
  });
};
