import type { AppErrorShape } from '../../src-shared/errors.js';
import type { MeshBudget } from './mesh-budget.js';
import type { MeshFormat } from './mesh-format.js';
import type { ChunkedMesh } from './mesh-chunks.js';

/** What the main thread asks of the mesh worker: one mesh per worker, so cancelling is terminating. */
export interface LoadRequest {
  name: string;
  format: MeshFormat;
  /** A File is read in the worker; an ArrayBuffer is transferred (never copied). */
  source: Blob | ArrayBuffer;
  budget: MeshBudget;
}

export type LoadStage = 'read' | 'parse' | 'weld' | 'normals';

export interface LoadTimings {
  readMs: number;
  parseMs: number;
  weldMs: number;
  normalsMs: number;
  totalMs: number;
}

export type WorkerMessage =
  | { type: 'progress'; stage: LoadStage; fraction: number }
  | { type: 'done'; mesh: ChunkedMesh; timings: LoadTimings }
  | { type: 'error'; error: AppErrorShape };
