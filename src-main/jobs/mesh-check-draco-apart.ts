import { Worker } from 'node:worker_threads';
import { workerScript } from '../platform/worker-entry.js';
import { MeshFault } from './mesh-scan.js';
import type { SurfaceCount } from './mesh-scan.js';

/** What the worker says: the file's fault, what it counted (it decodes), or why it could not judge. */
export type DracoVerdict = { fault: string } | { counted: SurfaceCount } | { failed: string };

const DRACO_CHECK_ENTRY = 'jobs/draco-check.entry.ts';

/**
 * The Draco check (mesh-check-draco.ts) of a large file, in a worker thread of its own: decoding a
 * mesh of millions of triangles takes a second or more, which would stall the thread that serves the
 * window and the queue, and leaves the decoder's memory at its largest. Throws a MeshFault for a file
 * that does not decode; any other failure (the worker could not run) is thrown as it is.
 */
export async function checkDracoApart(path: string): Promise<SurfaceCount> {
  const script = await workerScript(DRACO_CHECK_ENTRY);
  const worker = new Worker(script, { execArgv: [], workerData: { path } });
  const verdict = await new Promise<DracoVerdict>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the Draco check stopped (exit code ${code})`)));
  }).finally(() => void worker.terminate());
  if ('failed' in verdict) throw new Error(verdict.failed);
  if ('fault' in verdict) throw new MeshFault(verdict.fault);
  return verdict.counted;
}
