import type { BufferGeometry, Mesh, Object3D } from 'three';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { DRACOLoader } from 'three/examples/jsm/loaders/DRACOLoader.js';
import { AppError, isAppError } from '../../src-shared/errors.js';
import type { MeshFormat } from './mesh-format.js';

/** Triangles as three's loaders produce them, before welding: a soup, or indexed (PLY, Draco). */
export interface ParsedTriangles {
  positions: Float32Array;
  index: ArrayLike<number> | null;
}

function fromGeometry(geometry: BufferGeometry): ParsedTriangles {
  const position = geometry.getAttribute('position');
  if (!position || position.count === 0) return { positions: new Float32Array(0), index: null };
  const array = position.array;
  // PLY can declare double coordinates; the GPU takes float32 anyway.
  if (
    array instanceof Float32Array &&
    position.itemSize === 3 &&
    !('isInterleavedBufferAttribute' in position)
  ) {
    return { positions: array, index: geometry.index ? geometry.index.array : null };
  }
  const positions = new Float32Array(position.count * 3);
  for (let i = 0; i < position.count; i++) {
    positions[i * 3] = position.getX(i);
    positions[i * 3 + 1] = position.getY(i);
    positions[i * 3 + 2] = position.getZ(i);
  }
  return { positions, index: geometry.index ? geometry.index.array : null };
}

/** Every triangle mesh of an OBJ (it may hold several objects and groups) as one soup. */
function fromObjGroup(root: Object3D): ParsedTriangles {
  const parts: Float32Array[] = [];
  root.traverse((o) => {
    const mesh = o as Mesh;
    if (mesh.isMesh) {
      // OBJLoader yields non-indexed geometry; toNonIndexed keeps this true if that ever changes.
      const g = mesh.geometry.index ? mesh.geometry.toNonIndexed() : mesh.geometry;
      const p = fromGeometry(g).positions;
      if (p.length > 0) parts.push(p);
    }
  });
  if (parts.length === 1) return { positions: parts[0]!, index: null };
  const positions = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    positions.set(p, at);
    at += p.length;
  }
  return { positions, index: null };
}

/**
 * DRACOLoader finds three's decoder through `new URL('../libs/draco/...', import.meta.url)`, which
 * Vite bundles as assets of the app: the decoder comes from the app's own origin, as the CSP
 * demands, without a copy in the repository. It decodes in a nested worker of its own.
 */
function decodeDraco(buffer: ArrayBuffer): Promise<BufferGeometry> {
  const loader = new DRACOLoader().setWorkerLimit(1);
  return new Promise<BufferGeometry>((resolve, reject) => {
    loader.parse(buffer, resolve, (e: unknown) => reject(e instanceof Error ? e : new Error(String(e))));
  }).finally(() => loader.dispose());
}

/** Parses with three's own loaders; every failure becomes an AppError that says what is wrong. */
export async function parseMesh(
  name: string,
  format: MeshFormat,
  buffer: ArrayBuffer,
): Promise<ParsedTriangles> {
  try {
    switch (format) {
      case 'stl':
        return fromGeometry(new STLLoader().parse(buffer));
      case 'ply':
        return fromGeometry(new PLYLoader().parse(buffer));
      case 'obj':
        return fromObjGroup(new OBJLoader().parse(new TextDecoder().decode(buffer)));
      case 'drc':
        return fromGeometry(await decodeDraco(buffer));
    }
  } catch (e) {
    throw describeParseFailure(name, format, e);
  }
}

function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message;
  // DRACOLoader rejects with its worker's message object ({ type: 'error', error: '...' }).
  if (typeof e === 'object' && e !== null && 'error' in e) return String((e as { error: unknown }).error);
  return String(e);
}

export function describeParseFailure(name: string, format: MeshFormat, e: unknown): AppError {
  if (isAppError(e)) return e;
  const msg = messageOf(e);
  if (isAllocationFailure(e)) return tooLargeForMemory(name, e);
  const again = 'Export or download the mesh again; if it still fails, the file is damaged.';
  if (e instanceof RangeError || /out of bounds|outside the bounds|offset is outside/i.test(msg)) {
    return new AppError(
      'bad-input',
      `${name} ends before the data its header announces: it is truncated or corrupt.`,
      {
        action: again,
        cause: e,
      },
    );
  }
  const kind = { stl: 'STL', ply: 'PLY', obj: 'OBJ', drc: 'Draco' }[format];
  return new AppError('bad-input', `${name} is not a readable ${kind} mesh (${msg}).`, {
    action: again,
    cause: e,
  });
}

export function isAllocationFailure(e: unknown): boolean {
  const msg = messageOf(e);
  return (
    (e instanceof RangeError &&
      /alloc|Invalid typed array length|Invalid array length|Array buffer/i.test(msg)) ||
    /out of memory/i.test(msg)
  );
}

export function tooLargeForMemory(name: string, cause?: unknown): AppError {
  return new AppError(
    'bad-input',
    `${name} is too large to load on this computer: memory ran out while reading it.`,
    {
      action: 'Close other meshes or applications, or ask for a decimated mesh.',
      cause,
    },
  );
}
