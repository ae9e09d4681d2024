import { AppError } from '../../src-shared/errors.js';

export type MeshFormat = 'stl' | 'ply' | 'obj' | 'drc';

export const MESH_FORMATS: readonly MeshFormat[] = ['stl', 'ply', 'obj', 'drc'];
export const MESH_FILE_ACCEPT = '.stl,.ply,.obj,.drc';

const OPENABLE = 'Open an STL, PLY, OBJ or Draco (.drc) mesh.';

/** The format a file name announces, or null when it is not a mesh this viewer opens. */
export function formatFromFileName(name: string): MeshFormat | null {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  return MESH_FORMATS.find((f) => f === ext) ?? null;
}

export function requireFormat(name: string): MeshFormat {
  const f = formatFromFileName(name);
  if (f === null) {
    throw new AppError('bad-input', `${name} is not a mesh file this viewer can open.`, { action: OPENABLE });
  }
  return f;
}

/** How many bytes of a file the header checks need. */
export const HEADER_BYTES = 64 * 1024;

export interface HeaderFacts {
  /**
   * Triangles the file holds: exact where the header says so (binary STL, PLY), otherwise an
   * estimate from the byte size that errs high, since it only guards the memory budget.
   */
  triangles: number;
  exact: boolean;
}

function corrupt(name: string, what: string, action = 'Export or download the mesh again.'): AppError {
  return new AppError('bad-input', `${name} cannot be read: ${what}.`, { action });
}

/** An ASCII STL facet ("facet normal", "outer loop", 3 "vertex" lines...) takes 130 to 300 bytes. */
const ASCII_STL_BYTES_PER_TRIANGLE = 180;
/** An OBJ triangle is an "f a b c" line plus about half a "v x y z" line: 30 to 60 bytes. */
const OBJ_BYTES_PER_TRIANGLE = 30;
/** Draco stores well under a byte per triangle only for trivial meshes; 1 B/triangle errs high. */
const DRACO_BYTES_PER_TRIANGLE = 1;

function isMostlyText(head: Uint8Array): boolean {
  let printable = 0;
  const n = Math.min(head.length, 1024);
  for (let i = 0; i < n; i++) {
    const b = head[i]!;
    if (b === 9 || b === 10 || b === 13 || (b >= 32 && b < 127)) printable++;
  }
  return n > 0 && printable / n > 0.98;
}

function ascii(bytes: Uint8Array, from = 0, to = bytes.length): string {
  return new TextDecoder('latin1').decode(bytes.subarray(from, Math.min(to, bytes.length)));
}

function inspectStl(name: string, head: Uint8Array, size: number): HeaderFacts {
  if (size >= 84) {
    const n = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(80, true);
    // Same rule as STLLoader: the size matching the triangle count means binary, whatever the header says.
    if (84 + 50 * n === size) return { triangles: n, exact: true };
    const textual = isMostlyText(head) && /^\s*solid/.test(ascii(head, 0, 512));
    if (!textual) {
      const need = 84 + 50 * n;
      return fail(
        corrupt(
          name,
          need > size
            ? `it is a binary STL whose header announces ${n.toLocaleString('en-US')} triangles (${need.toLocaleString('en-US')} bytes) but the file has only ${size.toLocaleString('en-US')} bytes, so it is truncated`
            : `it is neither a binary STL (its size does not fit the triangle count in its header) nor an ASCII STL (it does not start with "solid")`,
        ),
      );
    }
  } else if (!/^\s*solid/.test(ascii(head))) {
    return fail(
      corrupt(name, `it has only ${size} bytes, too short for a binary STL, and is not an ASCII STL`),
    );
  }
  return { triangles: Math.ceil(size / ASCII_STL_BYTES_PER_TRIANGLE), exact: false };
}

const PLY_TYPE_BYTES: Record<string, number> = {
  char: 1,
  uchar: 1,
  int8: 1,
  uint8: 1,
  short: 2,
  ushort: 2,
  int16: 2,
  uint16: 2,
  int: 4,
  uint: 4,
  int32: 4,
  uint32: 4,
  float: 4,
  float32: 4,
  double: 8,
  float64: 8,
};

interface PlyElement {
  name: string;
  count: number;
  /** Bytes per element in a binary file when all properties are scalars, else null. */
  fixedBytes: number | null;
  /** For list properties: bytes of the count and of one item (a face list of 3 costs count + 3 items). */
  list: { countBytes: number; itemBytes: number } | null;
}

function inspectPly(name: string, head: Uint8Array, size: number): HeaderFacts {
  const text = ascii(head);
  if (!text.startsWith('ply'))
    return fail(corrupt(name, 'it does not start with "ply", so it is not a PLY file'));
  const end = text.indexOf('end_header');
  if (end < 0) return fail(corrupt(name, 'its header never ends ("end_header" is missing)'));
  const headerEnd = text.indexOf('\n', end) + 1 || end + 'end_header'.length;
  const lines = text.slice(0, end).split(/\r?\n/);
  const format = lines.find((l) => l.startsWith('format '))?.split(/\s+/)[1] ?? '';
  const elements: PlyElement[] = [];
  for (const line of lines) {
    const w = line.trim().split(/\s+/);
    if (w[0] === 'element') {
      elements.push({ name: w[1] ?? '', count: Number(w[2]), fixedBytes: 0, list: null });
    } else if (w[0] === 'property' && elements.length > 0) {
      const el = elements[elements.length - 1]!;
      if (w[1] === 'list') {
        el.list = { countBytes: PLY_TYPE_BYTES[w[2] ?? ''] ?? 0, itemBytes: PLY_TYPE_BYTES[w[3] ?? ''] ?? 0 };
        el.fixedBytes = null;
      } else if (el.fixedBytes !== null) {
        el.fixedBytes += PLY_TYPE_BYTES[w[1] ?? ''] ?? 0;
      }
    }
  }
  if (elements.some((e) => !Number.isSafeInteger(e.count) || e.count < 0)) {
    return fail(corrupt(name, 'its header has an element count that is not a number'));
  }
  if (format.startsWith('binary')) {
    // The smallest body the header allows (faces as triangles): a shorter file is cut off.
    let need = headerEnd;
    for (const e of elements) {
      if (e.fixedBytes !== null) need += e.count * e.fixedBytes;
      else if (e.list) need += e.count * (e.list.countBytes + 3 * e.list.itemBytes);
    }
    if (need > size) {
      return fail(
        corrupt(
          name,
          `its header announces ${need.toLocaleString('en-US')} bytes of data but the file has ${size.toLocaleString('en-US')}, so it is truncated`,
        ),
      );
    }
  }
  const faces = elements.find((e) => e.name === 'face');
  if (!faces || faces.count === 0) {
    return fail(
      new AppError('bad-input', `${name} has no faces: it is a point cloud, not a surface mesh.`, {
        action: 'Open a mesh with triangles (faces).',
      }),
    );
  }
  // Polygons are split into triangles; quads are the common case beyond triangles.
  return { triangles: faces.count, exact: false };
}

function inspectDraco(name: string, head: Uint8Array, size: number): HeaderFacts {
  if (ascii(head, 0, 5) !== 'DRACO')
    return fail(corrupt(name, 'it does not start with "DRACO", so it is not a Draco file'));
  return { triangles: Math.ceil(size / DRACO_BYTES_PER_TRIANGLE), exact: false };
}

function fail(e: AppError): never {
  throw e;
}

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
  switch (format) {
    case 'stl':
      return inspectStl(name, head, size);
    case 'ply':
      return inspectPly(name, head, size);
    case 'obj':
      return { triangles: Math.ceil(size / OBJ_BYTES_PER_TRIANGLE), exact: false };
    case 'drc':
      return inspectDraco(name, head, size);
  }
}
