import { AppError } from '../../src-shared/errors.js';
import type { MeshBudget } from './mesh-budget.js';
import type { MeshFormat } from './mesh-format.js';
import type { LoadStage, LoadTimings, LoadRequest, WorkerMessage } from './mesh-loader-protocol.js';
import type { ChunkedMesh } from './mesh-chunks.js';
import { silenceLimitMs, startWatchdog } from './parse-watchdog.js';

interface LoadedMesh extends ChunkedMesh {
  timings: LoadTimings;
}

interface LoadProgress {
  stage: LoadStage;
  /** 0..1 over the whole load, for one progress bar. */
  overall: number;
}

export interface MeshLoad {
  promise: Promise<LoadedMesh>;
  cancel(): void;
}

/** Share of the whole load each stage takes, roughly, for a binary STL of a few million triangles. */
const STAGES: Record<LoadStage, [start: number, share: number]> = {
  read: [0, 0.2],
  parse: [0.2, 0.35],
  weld: [0.55, 0.35],
  normals: [0.9, 0.1],
};

export const STAGE_LABELS: Record<LoadStage, string> = {
  read: 'Reading',
  parse: 'Parsing',
  weld: 'Merging vertices',
  normals: 'Computing normals',
};

function startWorker(): Worker {
  return new Worker(new URL('./mesh-loader.worker.ts', import.meta.url), {
    type: 'module',
    name: 'mesh-loader',
  });
}

/** A worker started ahead, its scripts (three's loaders) loaded while nothing else happens. */
let spare: Worker | null = null;
/** The viewer is open: keep a worker ready for the next file. */
let keepSpare = false;

/**
 * Starts a loader worker before any file is chosen (the viewer calls this when it opens), so a
 * chosen file does not wait for the worker's scripts to load and compile: 50-100 ms saved on the
 * way to the first frame.
 */
export function prepareMeshLoader(): void {
  keepSpare = true;
  spare ??= startWorker();
}

/** Stops the worker started ahead (the viewer closed). */
export function releaseMeshLoader(): void {
  keepSpare = false;
  spare?.terminate();
  spare = null;
}

function takeWorker(): Worker {
  const w = spare ?? startWorker();
  spare = null;
  return w;
}

/**
 * Loads one mesh in its own worker. An ArrayBuffer source is transferred: the caller's buffer
 * is detached afterwards. A Blob (File) is read by the worker itself.
 */
export function loadMeshInWorker(
  name: string,
  format: MeshFormat,
  source: Blob | ArrayBuffer,
  budget: MeshBudget,
  onProgress: (p: LoadProgress) => void,
): MeshLoad {
  const worker = takeWorker();
  let settle: { resolve: (m: LoadedMesh) => void; reject: (e: unknown) => void } | null = null;
  const promise = new Promise<LoadedMesh>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const size = source instanceof Blob ? source.size : source.byteLength;
  const watchdog = startWatchdog(silenceLimitMs(size), (silentMs) => {
    settle?.reject(
      new AppError(
        'bad-input',
        `${name} could not be loaded: reading it made no progress for ${Math.round(silentMs / 1000)} seconds, so it was stopped. The file is probably damaged or built to stall a reader.`,
        { action: 'Export or download the mesh again; if it happens again, report the file.' },
      ),
    );
    finish();
  });
  const finish = (): void => {
    watchdog.stop();
    worker.terminate();
    settle = null;
    if (keepSpare) spare ??= startWorker();
  };
  worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
    const m = event.data;
    watchdog.heard();
    if (m.type === 'progress') {
      const [start, share] = STAGES[m.stage];
      onProgress({ stage: m.stage, overall: start + share * m.fraction });
    } else if (m.type === 'done') {
      settle?.resolve({ ...m.mesh, timings: m.timings });
      finish();
    } else {
      const { code, message, action, retryable } = m.error;
      settle?.reject(
        new AppError(code, message, { ...(action ? { action } : {}), ...(retryable ? { retryable } : {}) }),
      );
      finish();
    }
  };
  worker.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    settle?.reject(
      new AppError(
        'internal',
        `${name} could not be loaded: the loader stopped (${event.message || 'no reason given'}).`,
        {
          action: 'If the mesh is very large, close other meshes and try again.',
        },
      ),
    );
    finish();
  };
  const request: LoadRequest = { name, format, source, budget };
  worker.postMessage(request, source instanceof ArrayBuffer ? [source] : []);
  return {
    promise,
    cancel: () => {
      settle?.reject(new AppError('canceled', `Loading ${name} was cancelled.`));
      finish();
    },
  };
}
