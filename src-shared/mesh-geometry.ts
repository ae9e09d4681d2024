/**
 * Geometry both sides need: the engine writes vertex normals into PLY and OBJ files, and the
 * viewer shades meshes that came without them (STL, Draco). One definition, so a mesh written by
 * the engine and one shaded by the viewer agree.
 */

/**
 * Area-weighted unit vertex normals of an indexed triangle mesh, pointing to the side the
 * triangles face (counter-clockwise winding). Each triangle adds its edge cross product, whose
 * length is twice its area, to its three corners; a vertex used only by degenerate triangles
 * keeps a zero normal.
 */
export function areaWeightedNormals(positions: ArrayLike<number>, index: ArrayLike<number>): Float32Array {
  const normals = new Float32Array(positions.length);
  for (let c = 0; c + 2 < index.length; c += 3) {
    const a = index[c]! * 3;
    const b = index[c + 1]! * 3;
    const d = index[c + 2]! * 3;
    const ax = positions[a]!,
      ay = positions[a + 1]!,
      az = positions[a + 2]!;
    const e1x = positions[b]! - ax,
      e1y = positions[b + 1]! - ay,
      e1z = positions[b + 2]! - az;
    const e2x = positions[d]! - ax,
      e2y = positions[d + 1]! - ay,
      e2z = positions[d + 2]! - az;
    const nx = e1y * e2z - e1z * e2y;
    const ny = e1z * e2x - e1x * e2z;
    const nz = e1x * e2y - e1y * e2x;
    normals[a]! += nx;
    normals[a + 1]! += ny;
    normals[a + 2]! += nz;
    normals[b]! += nx;
    normals[b + 1]! += ny;
    normals[b + 2]! += nz;
    normals[d]! += nx;
    normals[d + 1]! += ny;
    normals[d + 2]! += nz;
  }
  for (let i = 0; i < normals.length; i += 3) {
    const x = normals[i]!,
      y = normals[i + 1]!,
      z = normals[i + 2]!;
    const len = Math.hypot(x, y, z);
    if (len > 0) {
      normals[i] = x / len;
      normals[i + 1] = y / len;
      normals[i + 2] = z / len;
    }
  }
  return normals;
}

/**
 * Below this sine of a corner's angle a triangle is taken as flat: float32 corners on one line
 * come out of the cross product at about 1e-7 of the edges' product, not at 0.
 */
const FLAT_SINE = 1e-6;

/**
 * Whether the triangle of these corners (vertex numbers into `p`) has no area: the viewer counts
 * such triangles, and the download check refuses a mesh made only of them.
 */
export function noArea(p: ArrayLike<number>, a: number, b: number, c: number): boolean {
  if (a === b || b === c || a === c) return true;
  const ux = p[b * 3]! - p[a * 3]!,
    uy = p[b * 3 + 1]! - p[a * 3 + 1]!,
    uz = p[b * 3 + 2]! - p[a * 3 + 2]!;
  const vx = p[c * 3]! - p[a * 3]!,
    vy = p[c * 3 + 1]! - p[a * 3 + 1]!,
    vz = p[c * 3 + 2]! - p[a * 3 + 2]!;
  const cx = uy * vz - uz * vy,
    cy = uz * vx - ux * vz,
    cz = ux * vy - uy * vx;
  const cross2 = cx * cx + cy * cy + cz * cz;
  return cross2 <= FLAT_SINE * FLAT_SINE * (ux * ux + uy * uy + uz * uz) * (vx * vx + vy * vy + vz * vz);
}
