/**
 * Where a triangle mesh crosses a plane: the outline a slice view draws over the scan. Pure, so it
 * can be checked against hand-made meshes and run in a worker later. Works on the viewer's chunked
 * meshes, whose index entries count from their chunk's first vertex.
 */

export interface CutMesh {
  positions: Float32Array;
  index: ArrayLike<number>;
  /** When present, index entries in [start, start + count) are relative to firstVertex. */
  chunks?: readonly { start: number; count: number; firstVertex: number }[];
}

export interface Plane {
  point: readonly number[];
  /** Unit normal. */
  normal: readonly number[];
}

/**
 * The segments where the mesh's triangles cross the plane, as [x1, y1, z1, x2, y2, z2, ...] in the
 * mesh's coordinates. A triangle with a corner exactly on the plane counts that corner on the
 * positive side, so an edge lying in the plane is drawn once and never as a dot.
 */
export function cutMesh(mesh: CutMesh, plane: Plane): Float32Array {
  const { positions, index } = mesh;
  const [nx, ny, nz] = plane.normal as [number, number, number];
  const offset = nx * plane.point[0]! + ny * plane.point[1]! + nz * plane.point[2]!;
  // Signed distance of every vertex once: a vertex is shared by about six triangles.
  const vertexCount = Math.floor(positions.length / 3);
  const dist = new Float32Array(vertexCount);
  for (let v = 0, p = 0; v < vertexCount; v++, p += 3) {
    dist[v] = nx * positions[p]! + ny * positions[p + 1]! + nz * positions[p + 2]! - offset;
  }
  const out: number[] = [];
  const chunks = mesh.chunks ?? [{ start: 0, count: index.length, firstVertex: 0 }];
  const corner = [0, 0, 0];
  const lerp = (a: number, b: number): void => {
    const da = dist[a]!;
    const t = da / (da - dist[b]!);
    out.push(
      positions[a * 3]! + t * (positions[b * 3]! - positions[a * 3]!),
      positions[a * 3 + 1]! + t * (positions[b * 3 + 1]! - positions[a * 3 + 1]!),
      positions[a * 3 + 2]! + t * (positions[b * 3 + 2]! - positions[a * 3 + 2]!),
    );
  };
  for (const chunk of chunks) {
    const end = chunk.start + chunk.count - 2;
    for (let e = chunk.start; e < end; e += 3) {
      corner[0] = chunk.firstVertex + index[e]!;
      corner[1] = chunk.firstVertex + index[e + 1]!;
      corner[2] = chunk.firstVertex + index[e + 2]!;
      let pos = 0;
      for (let c = 0; c < 3; c++) if (dist[corner[c]!]! >= 0) pos++;
      if (pos === 0 || pos === 3) continue;
      // The lone corner (the one on the side the other two are not) and its two edges cross the plane.
      const lone = pos === 1 ? 1 : 0;
      for (let c = 0; c < 3; c++) {
        const a = corner[c]!;
        if ((dist[a]! >= 0 ? 1 : 0) !== lone) continue;
        lerp(a, corner[(c + 1) % 3]!);
        lerp(a, corner[(c + 2) % 3]!);
        break;
      }
    }
  }
  return Float32Array.from(out);
}
