/**
 * The download check of a PLY: the shared header rules (src-shared/ply-header.ts), then the whole
 * body walked as the viewer reads it: every element declared is there (an ASCII body, a line each),
 * vertices have coordinates anatomy can have, and faces name vertices the mesh has.
 */
import { plyBodyFault, plyMeshElements, readPlyHeader } from '../../src-shared/ply-header.js';
import type { PlyElement, PlyHeader } from '../../src-shared/ply-header.js';
import { PLY_GETTERS, PLY_TYPE_BYTES } from '../../src-shared/ply-types.js';
import { MeshFault, SurfaceWitness, checkCoordinate, fmt, forEachChunk, forEachLine } from './mesh-scan.js';

/**
 * Per element: which properties are the vertex's coordinates (0, 1, 2 for x, y, z; -1 for none) or
 * the face's corners.
 */
interface Roles {
  axis: number[];
  corners: boolean[];
  /** The element is the mesh's vertex element, or its face element. */
  is: 'vertex' | 'face' | 'other';
}

function rolesOf(h: PlyHeader): { roles: Roles[]; vertexFirst: boolean } {
  const mesh = plyMeshElements(h);
  if (typeof mesh === 'string') throw new MeshFault(mesh);
  const roles = h.elements.map((el) => ({
    axis: el.properties.map((p) => (el === mesh.vertex && !p.list ? ['x', 'y', 'z'].indexOf(p.name) : -1)),
    corners: el.properties.map((p) => el === mesh.face && p === mesh.faceList),
    is: el === mesh.vertex ? ('vertex' as const) : el === mesh.face ? ('face' as const) : ('other' as const),
  }));
  return { roles, vertexFirst: h.elements.indexOf(mesh.vertex) < h.elements.indexOf(mesh.face) };
}

/** What a walk hands on: a vertex's coordinates as they are read, a face's corners once read. */
class Feed {
  readonly xyz = [0, 0, 0];
  readonly corners: number[] = [];
  /** `surface`: undefined when faces come before the vertices they name (then not judged here). */
  constructor(readonly surface: SurfaceWitness | undefined) {}

  end(r: Roles): void {
    if (r.is === 'face') {
      this.surface?.face(this.corners);
      this.corners.length = 0;
    } else if (r.is === 'vertex') this.surface?.vertex(this.xyz[0]!, this.xyz[1]!, this.xyz[2]!);
  }
}

function corner(v: number, vertices: number): void {
  if (!(Number.isInteger(v) && v >= 0 && v < vertices))
    throw new MeshFault(
      `a face refers to vertex ${v}, which the mesh does not have (it has ${fmt(vertices)})`,
    );
}

const ended = (el: PlyElement, i: number): MeshFault =>
  new MeshFault(`it ends after ${fmt(i)} of the ${fmt(el.count)} "${el.name}" elements its header declares`);

/** One binary instance from `at`: its end, or -1 when `buf` ends first. Checks as it reads. */
function binaryInstance(
  view: DataView,
  at: number,
  el: PlyElement,
  r: Roles,
  le: boolean,
  vertices: number,
  feed: Feed,
): number {
  for (let k = 0; k < el.properties.length; k++) {
    const p = el.properties[k]!;
    const bytes = PLY_TYPE_BYTES[p.type]!;
    if (!p.list) {
      if (at + bytes > view.byteLength) return -1;
      if (r.axis[k]! >= 0) {
        const v = PLY_GETTERS[p.type]!(view, at, le);
        checkCoordinate(v);
        feed.xyz[r.axis[k]!] = v;
      }
      at += bytes;
      continue;
    }
    if (at + p.list.bytes > view.byteLength) return -1;
    const n = PLY_GETTERS[p.list.type]!(view, at, le);
    if (n < 0) throw new MeshFault('a list in its body has a negative length');
    at += p.list.bytes;
    if (at + n * bytes > view.byteLength) return -1;
    if (r.corners[k])
      for (let c = 0; c < n; c++) {
        const v = PLY_GETTERS[p.type]!(view, at + c * bytes, le);
        corner(v, vertices);
        feed.corners.push(v);
      }
    at += n * bytes;
  }
  feed.end(r);
  return at;
}

/** What a walk of the body needs: the file, its header, each element's roles, where values go. */
interface Walk {
  path: string;
  h: PlyHeader;
  size: number;
  roles: Roles[];
  vertices: number;
  feed: Feed;
}

async function walkBinary({ path, h, size, roles, vertices, feed }: Walk): Promise<void> {
  const le = h.format === 'binary_little_endian';
  let e = 0;
  let i = 0;
  let carry = Buffer.alloc(0);
  await forEachChunk(path, h.headerBytes, size, (chunk) => {
    const buf = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    let at = 0;
    while (e < h.elements.length) {
      const el = h.elements[e]!;
      if (i >= el.count) {
        e++;
        i = 0;
        continue;
      }
      const end = binaryInstance(view, at, el, roles[e]!, le, vertices, feed);
      if (end < 0) break;
      at = end;
      i++;
    }
    carry = Buffer.from(buf.subarray(at));
  });
  while (e < h.elements.length && i >= h.elements[e]!.count) [e, i] = [e + 1, 0];
  if (e < h.elements.length) throw ended(h.elements[e]!, i);
}

async function walkAscii({ path, h, size, roles, vertices, feed }: Walk): Promise<void> {
  let e = 0;
  let i = 0;
  await forEachLine(path, h.headerBytes, size, 'a PLY mesh', (line) => {
    while (e < h.elements.length && i >= h.elements[e]!.count) [e, i] = [e + 1, 0];
    const w = line.trim().split(/\s+/);
    if (e >= h.elements.length || w[0] === '') return;
    const el = h.elements[e]!;
    const r = roles[e]!;
    let t = 0;
    for (let k = 0; k < el.properties.length; k++) {
      const p = el.properties[k]!;
      const n = p.list ? Number(w[t++]) : 1;
      if (!(n >= 0) || t + n > w.length) throw new MeshFault(`a "${el.name}" line in its body is cut short`);
      for (let c = 0; c < n; c++) {
        const v = Number(w[t++]);
        if (r.axis[k]! >= 0) {
          checkCoordinate(v);
          feed.xyz[r.axis[k]!] = v;
        } else if (r.corners[k]) {
          corner(v, vertices);
          feed.corners.push(v);
        }
      }
    }
    feed.end(r);
    i++;
  });
  while (e < h.elements.length && i >= h.elements[e]!.count) [e, i] = [e + 1, 0];
  if (e < h.elements.length) throw ended(h.elements[e]!, i);
}

/** Throws a MeshFault saying what is wrong with the PLY at `path`. */
export async function checkPly(path: string, head: Buffer, size: number): Promise<void> {
  const h = readPlyHeader(head.toString('latin1'));
  if (typeof h === 'string') throw new MeshFault(h);
  const fault = plyBodyFault(h, size);
  if (fault) throw new MeshFault(fault);
  const { roles, vertexFirst } = rolesOf(h);
  const vertices = h.elements.find((el) => el.name === 'vertex')!.count;
  const feed = new Feed(vertexFirst ? new SurfaceWitness(vertices) : undefined);
  await (h.format === 'ascii' ? walkAscii : walkBinary)({ path, h, size, roles, vertices, feed });
  feed.surface?.check();
}
