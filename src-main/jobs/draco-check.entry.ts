/**
 * A worker thread that decodes one large downloaded Draco file (mesh-check-draco.ts) and says what is
 * wrong with it, then ends: the decoder's WebAssembly memory grows to the mesh and never shrinks, so
 * it lives and goes with this thread rather than staying in the app's main process.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { checkDraco } from './mesh-check-draco.js';
import { MeshFault } from './mesh-scan.js';
import type { DracoVerdict } from './mesh-check-draco-apart.js';

if (!parentPort) throw new Error('draco-check.entry must run in a worker thread');
const port = parentPort;
const { path } = workerData as { path: string };

checkDraco(path).then(
  (counted) => port.postMessage({ counted } satisfies DracoVerdict),
  (e: unknown) =>
    port.postMessage(
      (e instanceof MeshFault
        ? { fault: e.message }
        : { failed: e instanceof Error ? e.message : String(e) }) satisfies DracoVerdict,
    ),
);
