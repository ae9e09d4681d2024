import type { Volume } from '../../scans/volume.js';
import type { SlabPool } from './iso-surface.js';
import { countOnWorkers } from './job-volume.js';
import { planMesh, surfaceOf, type MeshContext } from './mesh-surface.js';
import { deriveThresholds } from './tissue.js';

/**
 * A small made-up scan taken through the same steps as a real skull, by a job worker made ready
 * ahead of its job (job-worker.entry.ts). A new worker runs every step's code for the first time:
 * V8 runs it unoptimised at first and optimises it only once it has run a while, so the real
 * scan's first pass of each step would be the slow one (measured on the 140-slice phantom:
 * extraction 490 ms cold, 220 ms warm). Rehearsed here, that first pass happens on 131,072 voxels
 * while the client still packs and uploads. `signal` is looked at between steps: a job that comes
 * meanwhile does not wait for the rest. Returns the triangles made (0 when cut short).
 */
export async function rehearse(pool: SlabPool, signal: AbortSignal): Promise<number> {
  const volume = rehearsalVolume();
  const hist = await countOnWorkers(volume.data, pool);
  if (signal.aborted) return 0;
  const thresholds = deriveThresholds(volume.data, volume.modality, hist);
  const plan = planMesh({ extension: '.stl', structures: ['skull'] }, 0, {});
  const c: MeshContext = {
    volume,
    thresholds,
    regions: new Map(),
    pool,
    // Nothing is written: the surface is all a rehearsal makes.
    workDir: '',
    at: () => () => {},
    signal,
  };
  try {
    return (await surfaceOf(plan, c)).simple.indices.length / 3;
  } catch (e) {
    if (!signal.aborted) throw e;
    return 0;
  }
}

/**
 * A head-sized box of CT values at 1 mm: air around a ball of soft tissue inside a rippled shell of
 * bone, on the same kind of array as a scan's (Int16, shared).
 */
function rehearsalVolume(): Volume {
  const [nx, ny, nz] = [64, 64, 32];
  const data = new Int16Array(new SharedArrayBuffer(nx * ny * nz * 2));
  for (let z = 0, i = 0; z < nz; z++) {
    for (let y = 0; y < ny; y++) {
      for (let x = 0; x < nx; x++, i++) {
        const [dx, dy, dz] = [x - nx / 2, y - ny / 2, (z - nz / 2) * 1.6];
        const r = Math.sqrt(dx * dx + dy * dy + dz * dz) + 2 * Math.sin(x * 0.4) * Math.cos(y * 0.3);
        data[i] = r > 29 ? -1000 : r > 26 ? 1200 + ((x * 7 + y * 13 + z * 5) % 200) : 40 + ((x + y) % 30);
      }
    }
  }
  return {
    data,
    dims: [nx, ny, nz],
    spacing: [1, 1, 1],
    origin: [0, 0, 0],
    rowDir: [1, 0, 0],
    colDir: [0, 1, 0],
    sliceDir: [0, 0, 1],
    modality: 'CT',
  };
}
