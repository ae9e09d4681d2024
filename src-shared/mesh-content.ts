/**
 * What a mesh file's first bytes say it is, for the download check (src-main/jobs/mesh-check.ts)
 * and the viewer's format readers alike: a server's error page or a compressed file saved under a
 * mesh's name is named for what it is, not reported as a broken mesh.
 */
import { fmt } from './mesh-text.js';

/** Farther than this from the origin (mm) no coordinate of anatomy lies. A kilometre in mm, a
 * metre in micrometres: a file in micrometres (the unit hint offers that reading) still loads; float32
 * keeps 0.06 units of precision there. Beyond it (1e30, 1e38) the view breaks down. */
export const MAX_COORDINATE = 1e6;

/** Bytes [from, to) as latin1 text. */
export const latin1Text = (b: Uint8Array, from: number, to: number): string => {
  let s = '';
  for (let i = from; i < Math.min(to, b.length); i++) s += String.fromCharCode(b[i]!);
  return s;
};

/**
 * A name for content that is no mesh of any format ("a web page", "JSON", "gzip-compressed
 * data", "a ZIP archive"), or undefined. Only for files that are not binary STL by their size:
 * an STL's 80-byte header is free text and may start with anything.
 */
export function foreignContent(head: Uint8Array): string | undefined {
  if (head[0] === 0x1f && head[1] === 0x8b) return 'gzip-compressed data';
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return 'a ZIP archive';
  const start = latin1Text(head, 0, 512)
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, '')
    .trimStart();
  if (/^<(!doctype\s+html|html|head|body|title|!--)/i.test(start)) return 'a web page';
  if (/^<\?xml/i.test(start)) return 'an XML document';
  if (/^\{\s*("|\})/.test(start) || /^\[\s*[{["\d\]-]/.test(start)) return 'JSON';
  return undefined;
}

/**
 * Bytes a binary STL may carry after its last declared triangle: some exporters pad the file
 * (to a block or with a stray newline). Less than one 50-byte record: a whole record more would be
 * a triangle the count leaves out, and then the count, not the padding, is in doubt.
 */
export const STL_TRAILING_SLACK = 49;

export type StlKind =
  | { kind: 'binary'; triangles: number; bytes: number }
  | { kind: 'ascii' }
  | { kind: 'neither'; triangles: number | null };

/**
 * Binary or ASCII, by the binary size rule first (84 + 50 bytes per triangle of the header's count,
 * with a little slack) and the text's structure second: "solid" then a "facet" or "endsolid" line.
 * Counting printable bytes fails on a small file whose name has a few non-ASCII letters.
 */
export function stlKind(head: Uint8Array, size: number): StlKind {
  const triangles =
    size >= 84 && head.length >= 84
      ? new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(80, true)
      : null;
  if (triangles !== null) {
    const bytes = 84 + 50 * triangles;
    if (size >= bytes && size - bytes <= STL_TRAILING_SLACK) return { kind: 'binary', triangles, bytes };
  }
  if (ASCII_STL_START.test(latin1Text(head, 0, ASCII_STL_SNIFF))) return { kind: 'ascii' };
  return { kind: 'neither', triangles };
}

/**
 * A UTF-8 byte-order mark as latin1 text: Windows tools put one before an ASCII STL's "solid". The
 * readers skip it (stl-text.ts), as they skip blanks.
 */
export const UTF8_BOM_LATIN1 = '\xEF\xBB\xBF';

/** Bytes of a file's start in which an ASCII STL shows itself: "solid" and its next statement. */
const ASCII_STL_SNIFF = 4096;
const ASCII_STL_START = /^(\xEF\xBB\xBF)?\s*solid[^\n]*\n\s*(facet|endsolid)\b/;

/**
 * Why a file stlKind finds neither binary nor ASCII is no STL: what it is instead when that is
 * plain, or how its size and its header's triangle count disagree (a truncated binary STL).
 */
export function stlNeitherFault(head: Uint8Array, size: number, triangles: number | null): string {
  const other = foreignContent(head) ?? otherMeshFormat(head, size);
  if (other) return `it is ${other}, not an STL mesh`;
  const start = latin1Text(head, 0, ASCII_STL_SNIFF);
  // Text that starts as an ASCII STL does, whose first line has no end in sight: its bytes 80 to 84
  // are letters, and read as a binary count they announce billions of triangles.
  if (/^(\xEF\xBB\xBF)?\s*solid\b/.test(start) && !start.includes('\n') && size > ASCII_STL_SNIFF)
    return `it starts with "solid" as an ASCII STL does, but its first line runs on past ${fmt(ASCII_STL_SNIFF)} bytes without a line break: no ASCII STL has a first line that long, so the file is damaged or is not an STL`;
  if (triangles === null)
    return `it has only ${fmt(size)} bytes, too short for a binary STL, and is not an ASCII STL`;
  const need = 84 + 50 * triangles;
  return need > size && need - size < 50 * triangles
    ? `it is a binary STL whose header announces ${fmt(triangles)} triangles (${fmt(need)} bytes) but the file has only ${fmt(size)} bytes, so it is truncated`
    : `it is neither a binary STL (its size, ${fmt(size)} bytes, does not fit the triangle count in its header) nor an ASCII STL (it does not start with "solid" and a facet): it is not an STL mesh`;
}

/** What other mesh format the content is, when it is plainly one ("a PLY file"), else undefined. */
export function otherMeshFormat(head: Uint8Array, size: number): string | undefined {
  const start = latin1Text(head, 0, 8);
  if (/^ply\r?\n/.test(start)) return 'a PLY file';
  if (start.startsWith('DRACO')) return 'a Draco file';
  const stl = stlKind(head, size);
  if (stl.kind === 'binary' && stl.bytes === size && stl.triangles > 0) return 'a binary STL';
  if (stl.kind === 'ascii') return 'an ASCII STL';
  return undefined;
}

/** What a file named .ply plainly is instead (a web page, gzip, a binary STL), or undefined. */
export function plyContentFault(head: Uint8Array, size: number): string | undefined {
  const other =
    foreignContent(head) ?? (latin1Text(head, 0, 3) === 'ply' ? undefined : otherMeshFormat(head, size));
  return other ? `it is ${other}, not a PLY mesh` : undefined;
}

/** Bytes of a Draco header: "DRACO", major and minor version, encoder type and method, 2 flag bytes. */
const DRACO_HEADER = 11;

/**
 * What is wrong with a Draco file's header, or undefined: its magic, a version Draco has written
 * (1.x, 2.x), a triangle mesh (type 1; 0 is a point cloud), a known method (0 sequential, 1
 * edgebreaker), and some data after the header. A header says nothing of whether the rest is
 * whole: decoding says that (the download check decodes; the viewer's decoder refuses in words).
 */
export function dracoHeaderFault(head: Uint8Array, size: number): string | undefined {
  const foreign = foreignContent(head);
  if (foreign) return `it is ${foreign}, not a Draco mesh`;
  if (latin1Text(head, 0, 5) !== 'DRACO') return 'it does not start with "DRACO", so it is not a Draco file';
  if (size <= DRACO_HEADER + 4) return `it has only ${size} bytes: a Draco header and no mesh`;
  const [major, , type, method] = [head[5]!, head[6]!, head[7]!, head[8]!];
  if (major < 1 || major > 2)
    return `its header names Draco version ${major}.${head[6]!}, which no decoder knows`;
  if (type === 0) return 'it is a Draco point cloud, not a surface mesh';
  if (type !== 1 || method > 1) return 'its header names an encoding Draco does not have';
  return undefined;
}
