/**
 * A PLY header read once, and the rules both the download check (src-main/jobs/mesh-check.ts) and
 * the viewer (src-renderer/viewer/formats/ply.ts) apply to it before the body is walked: one rule
 * in one place, so nothing is saved that the viewer would refuse, and nothing refused here loads.
 */
import { plyTypeBytes } from './ply-types.js';
import { fmt } from './mesh-text.js';

export interface PlyProperty {
  name: string;
  /** The scalar's type, or a list's item type. */
  type: string;
  bytes: number;
  /** For a list: its count's type and bytes. */
  list: { type: string; bytes: number } | null;
}

export interface PlyElement {
  name: string;
  count: number;
  properties: PlyProperty[];
}

export type PlyFormat = 'ascii' | 'binary_little_endian' | 'binary_big_endian';

export interface PlyHeader {
  format: PlyFormat;
  elements: PlyElement[];
  /** Bytes up to and including the "end_header" line's newline. */
  headerBytes: number;
  /** Its lines, "end_header" included: an ASCII body's lines are numbered on from there. */
  headerLines: number;
}

const FORMATS: readonly string[] = ['ascii', 'binary_little_endian', 'binary_big_endian'];

/** The header at the start of `text` (the file's first bytes as latin1), or what is wrong with it. */
export function readPlyHeader(text: string): PlyHeader | string {
  if (!/^ply\r?\n/.test(text)) return 'it does not start with "ply", so it is not a PLY file';
  const end = /(^|\n)end_header[ \t]*\r?\n/.exec(text);
  if (!end) return 'its header never ends ("end_header" is missing)';
  let format: string | null = null;
  const elements: PlyElement[] = [];
  for (const line of text.slice(0, end.index).split(/\r?\n/)) {
    const w = line.trim().split(/\s+/);
    if (w[0] === 'format') format = w[1] ?? '';
    else if (w[0] === 'element') {
      if (!/^\d+$/.test(w[2] ?? '') || !Number.isSafeInteger(Number(w[2])))
        return `its header has an element count that is not a number ("${line.trim().slice(0, 60)}")`;
      elements.push({ name: w[1] ?? '', count: Number(w[2]), properties: [] });
    } else if (w[0] === 'property') {
      const el = elements[elements.length - 1];
      if (!el) return 'its header has a property before any element';
      const isList = w[1] === 'list';
      const type = (isList ? w[3] : w[1]) ?? '';
      const countType = isList ? (w[2] ?? '') : '';
      const bytes = plyTypeBytes(type);
      const countBytes = isList ? plyTypeBytes(countType) : 0;
      if (bytes === undefined || countBytes === undefined)
        return `its header names a property type no reader knows ("${(bytes === undefined ? type : countType).slice(0, 30)}")`;
      el.properties.push({
        name: (isList ? w[4] : w[2]) ?? '',
        type,
        bytes,
        list: isList ? { type: countType, bytes: countBytes } : null,
      });
    }
  }
  if (format === null || !FORMATS.includes(format))
    return `its header names no format this reader knows (${format === null ? 'none' : `"${format.slice(0, 30)}"`})`;
  const headerBytes = end.index + end[0].length;
  const headerLines = text.slice(0, headerBytes).split('\n').length - 1;
  return { format: format as PlyFormat, elements, headerBytes, headerLines };
}

/** Whether a list holds a face's corners (three or more each). */
export const isFaceList = (el: PlyElement, p: PlyProperty): boolean =>
  el.name === 'face' && p.list !== null && (p.name === 'vertex_indices' || p.name === 'vertex_index');

/**
 * The fewest bytes one instance of the element takes in the body: binary, its scalars and list
 * counts; ASCII, two bytes per value (a digit and a separator). A list is counted empty, a face's
 * too: a face of 2 corners is then walked and named as such, not taken for a body cut short
 * (the walk tells a short body too, in words).
 */
function instanceBytes(h: PlyHeader, el: PlyElement): number {
  let bytes = 0;
  for (const p of el.properties) {
    if (h.format === 'ascii') bytes += 2;
    else bytes += p.list ? p.list.bytes : p.bytes;
  }
  return bytes;
}

/**
 * What the header promises that a file of `size` bytes cannot hold, or undefined. Every element
 * must cost at least a byte per instance: an element with no properties costs nothing, and a
 * reader walking 2^53 of them spins for years on a file of a few hundred bytes. Then the body
 * must have room for all instances at their fewest bytes (an ASCII file's last value may lack its
 * newline). Enough room is no proof of a whole body: the readers count what they read as well.
 */
export function plyBodyFault(h: PlyHeader, size: number): string | undefined {
  let need = 0;
  for (const el of h.elements) {
    const each = instanceBytes(h, el);
    if (each === 0 && el.count > 0)
      return `its header declares ${fmt(el.count)} "${el.name.slice(0, 30)}" elements with no data (no properties), which no reader can walk`;
    need += el.count * each;
  }
  const body = size - h.headerBytes + (h.format === 'ascii' ? 1 : 0);
  if (need <= body) return undefined;
  return h.format === 'ascii'
    ? `its header announces ${fmt(h.elements.reduce((n, e) => n + e.count, 0))} elements, more than its ${fmt(body)} bytes of data can hold, so it is truncated`
    : `its header announces at least ${fmt(h.headerBytes + need)} bytes but the file has ${fmt(size)}, so it is truncated`;
}

/** The element the mesh's corners come from and the face element, or what is missing. */
export function plyMeshElements(
  h: PlyHeader,
): { vertex: PlyElement; face: PlyElement; faceList: PlyProperty } | string {
  const vertex = h.elements.find((e) => e.name === 'vertex');
  const face = h.elements.find((e) => e.name === 'face');
  const faceList = face?.properties.find((p) => isFaceList(face, p));
  if (!face || !faceList || face.count === 0)
    return 'it has no faces: it is a point cloud, not a surface mesh';
  if (!vertex || vertex.count === 0) return 'it has faces but no vertices';
  for (const axis of ['x', 'y', 'z'])
    if (!vertex.properties.some((p) => p.name === axis && p.list === null))
      return `its vertices have no "${axis}" coordinate`;
  return { vertex, face, faceList };
}
