/**
 * What is wrong with a downloaded mesh, read once front to back: the job is done only when the
 * viewer will show what was saved, or the saved mesh's note says why it will not. The rules are the
 * viewer's, in src-shared for both to apply (mesh-content.ts, ply-header.ts, ply-body.ts; for text,
 * mesh-text.ts, obj-text.ts and stl-text.ts: the same lines, words and numbers): content that is
 * something else (a server's error page, JSON, gzip) is named for what it is; a binary STL has 84 +
 * 50 bytes per triangle of its count (and at most a few bytes of padding); an ASCII STL is whole
 * facets of three vertices and ends with "endsolid"; a PLY's elements are all there, with nothing
 * but blanks after them; an OBJ's faces name vertices it has and its last statement is whole; a
 * Draco file decodes; a mesh without triangles is empty, one whose every triangle has no area shows
 * nothing; and no coordinate lies beyond MAX_COORDINATE. What the viewer warns of (triangles without
 * area), or will not read on any computer (a file or triangle count past its limits,
 * src-shared/mesh-viewable.ts), becomes the saved mesh's note: the mesh is whole, and kept.
 */
import {
  dracoHeaderFault,
  plyContentFault,
  stlKind,
  stlNeitherFault,
} from '../../src-shared/mesh-content.js';
import { NO_TRIANGLES } from '../../src-shared/mesh-text.js';
import { ObjText, objContentFault } from '../../src-shared/obj-text.js';
import { StlText } from '../../src-shared/stl-text.js';
import { degenerateWarning, tooLargeForViewerNote } from '../../src-shared/mesh-viewable.js';
import { checkPly } from './mesh-check-ply.js';
import { MeshFault, SurfaceWitness, checkCoordinate, forEachChunk, scanText } from './mesh-scan.js';
import type { MeshFile, SurfaceCount } from './mesh-scan.js';
import { checkDraco } from './mesh-check-draco.js';
import { checkDracoApart } from './mesh-check-draco-apart.js';

export type MeshExtension = '.stl' | '.ply' | '.obj' | '.drc';
export const MESH_EXTENSIONS: readonly string[] = ['.stl', '.ply', '.obj', '.drc'];

async function checkStl(file: MeshFile, head: Buffer, size: number): Promise<SurfaceCount> {
  const stl = stlKind(head, size);
  if (stl.kind === 'neither') throw new MeshFault(stlNeitherFault(head, size, stl.triangles));
  const surface = new SurfaceWitness();
  if (stl.kind === 'ascii') {
    // The viewer's own reader of ASCII STL (src-shared/stl-text.ts), fed the same text.
    const text = new StlText({
      facet: (corners) => {
        for (const x of corners) checkCoordinate(x);
        surface.triangle(corners);
      },
    });
    await scanText(file, 0, size, text.lines);
    text.finish();
    return surface.check();
  }
  if (stl.triangles === 0) throw new MeshFault(`${NO_TRIANGLES} (its header counts 0 triangles)`);
  const facet = new Float32Array(9);
  let carry = Buffer.alloc(0);
  await forEachChunk(file, 84, stl.bytes, (chunk) => {
    const buf = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    // A DataView's reads compile to plain loads; Buffer.readFloatLE checks its arguments at every call
    // and took over three times as long (0.3 µs a triangle, against 0.09).
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    let at = 0;
    // A record: a normal (3 floats), 3 corners (9 floats), 2 attribute bytes.
    for (; at + 50 <= buf.length; at += 50) {
      for (let k = 0; k < 9; k++) {
        const x = view.getFloat32(at + 12 + 4 * k, true);
        checkCoordinate(x);
        facet[k] = x;
      }
      surface.triangle(facet);
    }
    carry = Buffer.from(buf.subarray(at));
  });
  return surface.check();
}

async function checkObj(file: MeshFile, head: Buffer, size: number): Promise<SurfaceCount> {
  // What it plainly is instead, or binary data by its first bytes (a file of zeros), as the viewer says.
  const fault = objContentFault(head, size);
  if (fault) throw new MeshFault(fault);
  const surface = new SurfaceWitness();
  // The viewer's own reader of OBJ (src-shared/obj-text.ts), fed the same text.
  const text = new ObjText({
    vertex: (x, y, z) => {
      checkCoordinate(x);
      checkCoordinate(y);
      checkCoordinate(z);
      surface.vertex(x, y, z);
    },
    face: (corners, n) => surface.face(corners, n),
  });
  await scanText(file, 0, size, text.lines);
  text.finish();
  return surface.check();
}

/**
 * Draco files up to this size (about two million triangles) are decoded on this thread, which also
 * serves the window and the queue (a tenth of a second per million triangles). A larger one is
 * decoded in a worker thread of its own, which ends with its check: the decoder's WebAssembly memory
 * grows to the largest mesh and stays. Every Draco file is decoded before its job is done.
 */
const DRACO_IN_THREAD_MAX_BYTES = 16 * 1024 * 1024;

async function checkDrc(file: MeshFile, head: Buffer, size: number): Promise<SurfaceCount> {
  const fault = dracoHeaderFault(head, size);
  if (fault) throw new MeshFault(fault);
  return size <= DRACO_IN_THREAD_MAX_BYTES ? checkDraco(file.path, file.whole) : checkDracoApart(file.path);
}

const CHECKS: Record<MeshExtension, (file: MeshFile, head: Buffer, size: number) => Promise<SurfaceCount>> = {
  '.stl': checkStl,
  '.ply': async (file, head, size) => {
    const other = plyContentFault(head, size);
    if (other) throw new MeshFault(other);
    return checkPly(file, head, size);
  },
  '.obj': checkObj,
  '.drc': checkDrc,
};

/**
 * The note of a whole mesh of `size` bytes, in the viewer's words (src-shared/mesh-viewable.ts):
 * that it cannot show it on any computer, and what it warns of when it does. Undefined: none.
 */
export function savedMeshNote(size: number, { triangles, degenerate }: SurfaceCount): string | undefined {
  const notes = [
    tooLargeForViewerNote(size, triangles),
    degenerate === undefined ? undefined : degenerateWarning(degenerate, triangles),
  ].filter((n) => n !== undefined);
  return notes.length > 0 ? notes.map((n) => (n.endsWith('.') ? n : `${n}.`)).join(' ') : undefined;
}

/**
 * What is wrong with the mesh `file` (`head`: its first bytes, `size` > 0), or what its note
 * says when it is kept: what the viewer will warn of (degenerate triangles, in its words), or that
 * the viewer will not read it on any computer. Such a mesh is saved all the same: it is whole, other
 * programs open it, and another download would bring the same; the note says so plainly.
 */
export async function meshVerdict(
  file: MeshFile,
  ext: MeshExtension,
  head: Buffer,
  size: number,
): Promise<{ fault: string } | { note: string | undefined }> {
  try {
    return { note: savedMeshNote(size, await CHECKS[ext](file, head, size)) };
  } catch (e) {
    if (e instanceof MeshFault) return { fault: e.message };
    // A reader's own failure (a RangeError) is still a verdict on the file, to be said as one, not
    // an internal error without advice; a failure to read the file (an errno) is not.
    if (e instanceof Error && !('errno' in e))
      return { fault: `it cannot be read as a ${ext} mesh (${e.name}: ${e.message.slice(0, 80)})` };
    throw e;
  }
}
