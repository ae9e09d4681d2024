/**
 * Reads a mesh file of any format the viewer opens, in the loader's worker: the format's own
 * module (formats/) checks its header and parses it; every failure becomes an AppError that says
 * what is wrong.
 */
import { AppError, isAppError } from '../../src-shared/errors.js';
import { MeshFault } from '../../src-shared/mesh-text.js';
import { dracoReader } from './formats/draco.js';
import { corrupt } from './formats/format-reader.js';
import type { MeshFormatReader, ParsedTriangles, ParseOptions } from './formats/format-reader.js';
import { objReader } from './formats/obj.js';
import { plyReader } from './formats/ply.js';
import { stlReader } from './formats/stl.js';
import type { HeaderFacts, MeshFormat } from './mesh-format.js';

const READERS: Record<MeshFormat, MeshFormatReader> = {
  stl: stlReader,
  ply: plyReader,
  obj: objReader,
  drc: dracoReader,
};

/**
 * Checks what the first bytes of a mesh file promise, before anything is parsed: empty,
 * truncated and mislabelled files are refused with a message saying what is wrong, and the
 * triangle count feeds the memory budget.
 */
export function inspectMeshHeader(
  name: string,
  format: MeshFormat,
  head: Uint8Array,
  size: number,
): HeaderFacts {
  if (size === 0) {
    throw new AppError('bad-input', `${name} is empty (0 bytes).`, {
      action: 'Export or download the mesh again.',
    });
  }
  try {
    return READERS[format].inspect(name, head, size);
  } catch (e) {
    throw describeParseFailure(name, format, e);
  }
}

/** Parses with the format's reader (three's loaders for STL and Draco, our own for PLY and OBJ). */
export async function parseMesh(
  name: string,
  format: MeshFormat,
  buffer: ArrayBuffer,
  opts: Omit<ParseOptions, 'name'> = {},
): Promise<ParsedTriangles> {
  try {
    return await READERS[format].parse(buffer, { ...opts, name });
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
  // The rules shared with the download check (src-shared) say what is wrong in its words.
  if (e instanceof MeshFault) return corrupt(name, e.message);
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
  return new AppError('bad-input', `${name} is not a readable ${READERS[format].label} mesh (${msg}).`, {
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
