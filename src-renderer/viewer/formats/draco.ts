/** Draco (.drc), decoded by three's DRACOLoader. */
import type { BufferGeometry } from 'three';
import { DRACOLoader } from 'three/examples/jsm/loaders/DRACOLoader.js';
import { dracoHeaderFault } from '../../../src-shared/mesh-content.js';
import type { HeaderFacts } from '../mesh-format.js';
import { corrupt, trianglesOf } from './format-reader.js';
import type { MeshFormatReader } from './format-reader.js';

/** Draco stores well under a byte per triangle only for trivial meshes; 1 B/triangle errs high. */
const DRACO_BYTES_PER_TRIANGLE = 1;

function inspect(name: string, head: Uint8Array, size: number): HeaderFacts {
  const fault = dracoHeaderFault(head, size);
  if (fault) throw corrupt(name, fault);
  return { triangles: Math.ceil(size / DRACO_BYTES_PER_TRIANGLE), exact: false };
}

/** DRACOLoader rejects with its worker's message ({ type: 'error', error: '...' }), not an Error. */
export function errorOf(e: unknown): Error {
  if (e instanceof Error) return e;
  if (typeof e === 'object' && e !== null && 'error' in e)
    return new Error(String((e as { error: unknown }).error));
  return new Error(String(e));
}

/**
 * DRACOLoader finds three's decoder through `new URL('../libs/draco/...', import.meta.url)`, which
 * Vite bundles as assets of the app: the decoder comes from the app's own origin, as the CSP
 * demands, without a copy in the repository. It decodes in a nested worker of its own.
 */
function decode(buffer: ArrayBuffer): Promise<BufferGeometry> {
  const loader = new DRACOLoader().setWorkerLimit(1);
  return new Promise<BufferGeometry>((resolve, reject) => {
    loader.parse(buffer, resolve, (e: unknown) => reject(errorOf(e)));
  }).finally(() => loader.dispose());
}

export const dracoReader: MeshFormatReader = {
  label: 'Draco',
  inspect,
  parse: async (buffer) => trianglesOf(await decode(buffer)),
};
