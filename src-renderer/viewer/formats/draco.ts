/** Draco (.drc), decoded by three's DRACOLoader. */
import type { BufferGeometry } from 'three';
import { DRACOLoader } from 'three/examples/jsm/loaders/DRACOLoader.js';
import type { HeaderFacts } from '../mesh-format.js';
import { ascii, corrupt, trianglesOf } from './format-reader.js';
import type { MeshFormatReader } from './format-reader.js';

/** Draco stores well under a byte per triangle only for trivial meshes; 1 B/triangle errs high. */
const DRACO_BYTES_PER_TRIANGLE = 1;

function inspect(name: string, head: Uint8Array, size: number): HeaderFacts {
  if (ascii(head, 0, 5) !== 'DRACO')
    throw corrupt(name, 'it does not start with "DRACO", so it is not a Draco file');
  return { triangles: Math.ceil(size / DRACO_BYTES_PER_TRIANGLE), exact: false };
}

/**
 * DRACOLoader finds three's decoder through `new URL('../libs/draco/...', import.meta.url)`, which
 * Vite bundles as assets of the app: the decoder comes from the app's own origin, as the CSP
 * demands, without a copy in the repository. It decodes in a nested worker of its own.
 */
function decode(buffer: ArrayBuffer): Promise<BufferGeometry> {
  const loader = new DRACOLoader().setWorkerLimit(1);
  return new Promise<BufferGeometry>((resolve, reject) => {
    loader.parse(buffer, resolve, (e: unknown) => reject(e instanceof Error ? e : new Error(String(e))));
  }).finally(() => loader.dispose());
}

export const dracoReader: MeshFormatReader = {
  label: 'Draco',
  inspect,
  parse: async (buffer) => trianglesOf(await decode(buffer)),
};
