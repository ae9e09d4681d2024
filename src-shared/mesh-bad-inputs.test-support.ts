/**
 * Files the download check kept and the viewer refused or showed wrong (audit B), each made from a
 * real fixture (../shared/fixtures/mesh) as the audit made it. One table, run through the check
 * (src-main/jobs/mesh-check-shared.test.ts) and through the viewer's readers
 * (src-renderer/viewer/mesh-shared-rules.test.ts): both must say the same, or keep the same mesh.
 */

/** Reads a fixture mesh by its path under fixtures/mesh; each side brings its own. */
export type FixtureReader = (path: string) => Uint8Array;

export interface BadInput {
  what: string;
  ext: 'stl' | 'ply' | 'obj';
  make(fixture: FixtureReader): Uint8Array;
  /** What both sides' refusals say, or how many triangles both keep. */
  says: RegExp | { triangles: number };
}

/** Latin-1 text of bytes, and back (no Buffer or TextDecoder here: src-shared runs anywhere). */
export function latin1(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i += 8192)
    s += String.fromCharCode(...b.subarray(i, Math.min(b.length, i + 8192)));
  return s;
}
export function bytes(s: string): Uint8Array {
  const b = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i);
  return b;
}
const join = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

const OBJ = 'spot-public-domain.obj';
const STL = 'sphere-ascii.stl';
const PLY = 'bunny-ascii.ply';
const obj = (f: FixtureReader): string => latin1(f(OBJ));
const stl = (f: FixtureReader): string => latin1(f(STL));

/**
 * The turbine blade (binary PLY: 99,519 float x y z vertices, 199,034 faces of a uchar count and 3
 * int corners) written again with its vertices and faces changed, and its elements in either order.
 */
function blade(
  f: FixtureReader,
  opts: {
    facesFirst?: boolean;
    vertex?: (i: number, xyz: [number, number, number]) => [number, number, number];
    count?: 'uchar' | 'int' | 'float';
    face?: (i: number, corners: number[]) => { n: number; corners: number[] };
    vertices?: number;
  },
): Uint8Array {
  const src = f('turbineblade-binary.ply');
  const body = latin1(src.subarray(0, 1024)).indexOf('end_header\n') + 11;
  const inV = new DataView(src.buffer, src.byteOffset + body);
  const nv = 99_519;
  const nf = 199_034;
  const vertices = opts.vertices ?? nv;
  const v = new DataView(new ArrayBuffer(12 * vertices));
  for (let i = 0; i < vertices; i++) {
    const j = i % nv;
    const xyz: [number, number, number] = [0, 1, 2].map((k) => inV.getFloat32(12 * j + 4 * k, true)) as [
      number,
      number,
      number,
    ];
    (opts.vertex?.(i, xyz) ?? xyz).forEach((c, k) => v.setFloat32(12 * i + 4 * k, c, true));
  }
  const count = opts.count ?? 'uchar';
  const countBytes = count === 'uchar' ? 1 : 4;
  const fv = 12 * nv;
  const faceList = (i: number): number[] => [1, 5, 9].map((o) => inV.getInt32(fv + 13 * i + o, true));
  const face = (i: number): number[] => {
    const { n, corners } = opts.face?.(i, faceList(i)) ?? { n: 3, corners: faceList(i) };
    return [n, ...corners];
  };
  const faceCount = opts.vertices === undefined ? nf : 1;
  const fd = new DataView(new ArrayBuffer(faceCount * (countBytes + 12)));
  let at = 0;
  for (let i = 0; i < faceCount; i++) {
    const [n, ...corners] = face(i) as [number, ...number[]];
    if (count === 'uchar') fd.setUint8(at, n);
    else if (count === 'int') fd.setInt32(at, n, true);
    else fd.setFloat32(at, n, true);
    at += countBytes;
    for (const c of corners) {
      fd.setInt32(at, c, true);
      at += 4;
    }
  }
  const vh = `element vertex ${vertices}\nproperty float x\nproperty float y\nproperty float z\n`;
  const fh = `element face ${faceCount}\nproperty list ${count} int vertex_indices\n`;
  const header = `ply\nformat binary_little_endian 1.0\n${opts.facesFirst ? fh + vh : vh + fh}end_header\n`;
  const vb = new Uint8Array(v.buffer);
  const fb = new Uint8Array(fd.buffer, 0, at);
  // Faces shorter than the header's fewest bytes would be refused as truncated: pad to the original.
  const pad = new Uint8Array(Math.max(0, faceCount * 13 - fb.length));
  return opts.facesFirst ? join(bytes(header), fb, vb, pad) : join(bytes(header), vb, fb, pad);
}

export const BAD_INPUTS: BadInput[] = [
  {
    what: 'OBJ faces each followed by a comment (valid OBJ: kept whole)',
    ext: 'obj',
    make: (f) => bytes(obj(f).replace(/^(f [^\n]*?)(\r?)$/gm, '$1 # a comment 1 2 3$2')),
    says: { triangles: 5856 },
  },
  {
    what: 'OBJ vertex at 1e999, a decimal number too large for any coordinate',
    ext: 'obj',
    make: (f) => bytes(obj(f).replace(/^v (\S+)/m, 'v 1e999')),
    says: /line \d+ is a vertex whose coordinates are not decimal numbers/,
  },
  ...['1.0', '1e0', '0x1'].map((n): BadInput => ({
    what: `OBJ face corner written ${n}`,
    ext: 'obj',
    make: (f) => bytes(`${obj(f)}f ${n} 2 3\n`),
    says: new RegExp(`line 12,012 is a face whose corners are not vertex numbers \\("f ${n} 2 3"\\)`),
  })),
  {
    what: 'OBJ faces whose "f" a non-breaking space follows',
    ext: 'obj',
    make: (f) => bytes(obj(f).replace(/\nf /g, '\nf\xA0')),
    says: /line [\d,]+ starts with "f\\xa0\d+[^"]*", which is no OBJ statement: only spaces and tabs/,
  },
  {
    what: 'OBJ vertex whose "v" a non-breaking space follows',
    ext: 'obj',
    make: (f) => bytes(obj(f).replace('\nv ', '\nv\xA0')),
    says: /line 2 starts with "v\\xa00\.313132", which is no OBJ statement/,
  },
  {
    what: 'OBJ with a NUL before a face',
    ext: 'obj',
    make: (f) => bytes(obj(f).replace('\nf ', '\n\0f ')),
    says: /line [\d,]+ holds binary data \("\\x00f"\): it is not an OBJ mesh/,
  },
  {
    what: 'OBJ whose last face goes on for 3 MB without a line break',
    ext: 'obj',
    make: (f) => bytes(`${obj(f)}f 1 2 3${' 1'.repeat(1_500_000)}`),
    says: /line 12,012 is longer than 1,048,576 bytes: not an OBJ mesh/,
  },
  {
    what: '3 MB of zeros named .obj',
    ext: 'obj',
    make: () => new Uint8Array(3 << 20),
    says: /line 1 holds binary data \("\\x00\\x00\\x00[^"]*"\): it is not an OBJ mesh/,
  },
  {
    what: 'ASCII STL whose first facet has 4 vertices and the second 2',
    ext: 'stl',
    make: (f) => {
      const lines = stl(f).split('\n');
      // The second facet's first vertex (line 11) moves into the first facet's loop.
      lines.splice(6, 0, lines.splice(10, 1)[0]!);
      return bytes(lines.join('\n'));
    },
    says: /the facet of line 2 has more than 3 vertices: STL facets are triangles/,
  },
  ...['0x1', 'nan'].map((x): BadInput => ({
    what: `ASCII STL vertex ${x}`,
    ext: 'stl',
    make: (f) => bytes(stl(f).replace('vertex 0.382683', `vertex ${x}`)),
    says: new RegExp(`line 4 is a vertex whose coordinates are not 3 decimal numbers \\("vertex ${x} `),
  })),
  {
    what: 'ASCII STL whose vertex line goes on for 3 MB',
    ext: 'stl',
    make: (f) =>
      bytes(stl(f).replace('vertex 0.382683 -0.000000 0.923880', `vertex 1 2 3${' 4'.repeat(1_500_000)}`)),
    says: /line 4 is longer than 1,048,576 bytes: not an ASCII STL/,
  },
  {
    what: 'ASCII STL of one facet in under 84 bytes',
    ext: 'stl',
    make: (f) => {
      // The sphere's first facet, its coordinates rounded to one digit and its loop left out.
      const corners = [...stl(f).matchAll(/vertex (\S+) (\S+) (\S+)/g)].slice(0, 3);
      const round = (c: string): string => String(Math.round(Number(c) * 10) / 10);
      const v = corners.map((m) => `vertex ${m.slice(1).map(round).join(' ')}`).join('\n');
      const small = bytes(`solid\nfacet\n${v}\nendfacet\nendsolid`);
      if (small.length >= 84) throw new Error(`${small.length} bytes`);
      return small;
    },
    says: { triangles: 1 },
  },
  {
    what: 'ASCII PLY with one value too many on a vertex line',
    ext: 'ply',
    make: (f) => bytes(latin1(f(PLY)).replace(/(end_header\n(?:.*\n){100}.*?) ?\n/, '$1 7\n')),
    says: /line 113 has 6 values, more than a "vertex" element holds \(5\): each element must be a line/,
  },
  {
    what: 'ASCII PLY whose face line goes on for 3 MB',
    ext: 'ply',
    make: (f) => bytes(latin1(f(PLY)).replace(/\n3 (\d+)/, `\n3 $1${' 1'.repeat(1_500_000)}`)),
    says: /line 35,960 is longer than 1,048,576 bytes: not a PLY mesh/,
  },
  {
    what: 'binary PLY whose every face has 2 corners',
    ext: 'ply',
    make: (f) => blade(f, { face: (_i, c) => ({ n: 2, corners: c.slice(0, 2) }) }),
    says: /face 0 has 2 corners: a face needs at least 3/,
  },
  {
    what: 'binary PLY, faces before vertices, every triangle degenerate',
    ext: 'ply',
    make: (f) => blade(f, { facesFirst: true, vertex: () => [0, 0, 0] }),
    says: /199,034 (of its )?triangles (of the mesh )?are degenerate \(zero area\)/,
  },
  {
    what: 'binary PLY, faces before vertices, read as a whole',
    ext: 'ply',
    make: (f) => blade(f, { facesFirst: true }),
    says: { triangles: 199_034 },
  },
  {
    what: 'binary PLY whose float list count is NaN',
    ext: 'ply',
    make: (f) => blade(f, { count: 'float', face: (i, c) => ({ n: i === 10 ? NaN : 3, corners: c }) }),
    says: /a list in its body has a length that is not a whole number \(NaN\)/,
  },
  {
    what: 'binary PLY whose int list count is -1',
    ext: 'ply',
    make: (f) => blade(f, { count: 'int', face: (i, c) => ({ n: i === 10 ? -1 : 3, corners: c }) }),
    says: /a list in its body has a negative length \(-1\)/,
  },
  {
    what: 'binary PLY whose list count says 2 billion corners',
    ext: 'ply',
    make: (f) => blade(f, { count: 'int', face: (i, c) => ({ n: i === 10 ? 2 ** 31 - 1 : 3, corners: c }) }),
    says: /it ends after 10 of the 199,034 "face" elements its header declares, so it is truncated/,
  },
  {
    what: 'binary PLY with a NaN coordinate',
    ext: 'ply',
    make: (f) => blade(f, { vertex: (i, xyz) => (i === 7 ? [NaN, 0, 0] : xyz) }),
    says: /vertex 7 has coordinates that are not numbers \(NaN or infinite\)/,
  },
  {
    what: 'binary PLY of 1.2 million vertices and one face',
    ext: 'ply',
    make: (f) => blade(f, { vertices: 1_200_000 }),
    says: /1,200,000 vertices but 1 triangle, which uses at most 3 of them: it is a point cloud/,
  },
  // Audit E: data past what the header declares, a face of 2 corners, an STL's byte-order mark.
  {
    what: 'ASCII PLY with a face line more than its header declares',
    ext: 'ply',
    make: (f) => bytes(`${latin1(f(PLY))}3 0 1 2\n`),
    says: /data follows the last of its 69,451 "face" elements \(line 105,411: "3 0 1 2"\), so the header's count is wrong/,
  },
  {
    what: 'ASCII PLY ending in blank lines and spaces (padding, kept)',
    ext: 'ply',
    make: (f) => bytes(`${latin1(f(PLY))}\n  \r\n\t\n`),
    says: { triangles: 69_451 },
  },
  {
    what: 'binary PLY holding 2 faces more than its header declares',
    ext: 'ply',
    make: (f) => bytes(latin1(blade(f, {})).replace('element face 199034', 'element face 199032')),
    says: /data follows the last of its 199,032 "face" elements \(binary data\), so the header's count is wrong/,
  },
  {
    what: 'binary PLY ending in a newline (padding, kept)',
    ext: 'ply',
    make: (f) => join(blade(f, {}), bytes('\n')),
    says: { triangles: 199_034 },
  },
  {
    what: 'ASCII PLY whose first face has 2 corners',
    ext: 'ply',
    make: (f) => bytes(latin1(f(PLY)).replace(/\n3 (\d+) (\d+) \d+/, '\n2 $1 $2')),
    says: /face 0 \(line 35,960, "2 \d+ \d+"\) has 2 corners: a face needs at least 3/,
  },
  {
    what: 'ASCII PLY of two faces, the second of 2 corners, too short for two triangles',
    ext: 'ply',
    make: () =>
      bytes(
        'ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n' +
          'element face 2\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n2 0 1\n',
      ),
    says: /face 1 \(line 14, "2 0 1"\) has 2 corners: a face needs at least 3/,
  },
  {
    what: 'ASCII STL starting with a UTF-8 byte-order mark (kept)',
    ext: 'stl',
    make: (f) => bytes(`\xEF\xBB\xBF${stl(f)}`),
    says: { triangles: 224 },
  },
  {
    what: 'text starting with "solid" whose first line runs on for 3 MB',
    ext: 'stl',
    make: (f) => bytes(`solid ${'x'.repeat(3_000_000)}\n${stl(f).slice(stl(f).indexOf('\n') + 1)}`),
    says: /it starts with "solid" as an ASCII STL does, but its first line runs on past 4,096 bytes without a line break/,
  },
];

/**
 * The binary spider (1,368 triangles) with every vertex moved onto the x axis but one facet's corner
 * left off it (audit E's stl_one_real_tri.stl): 1,367 triangles without area, one with. The viewer
 * warns of them; the download check notes the same on the saved mesh.
 */
export function oneTriangleWithArea(f: FixtureReader): Uint8Array {
  const stl = f('spider-binary.stl').slice();
  const v = new DataView(stl.buffer, stl.byteOffset, stl.byteLength);
  const triangles = v.getUint32(80, true);
  for (let t = 0; t < triangles; t++)
    for (let c = 0; c < 3; c++)
      for (const axis of [1, 2]) v.setFloat32(84 + 50 * t + 12 + 12 * c + 4 * axis, 0, true);
  v.setFloat32(84 + 12 + 12 + 4, 5, true);
  return stl;
}
