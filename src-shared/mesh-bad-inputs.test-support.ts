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

const OBJ = 'spot-public-domain.obj';
const STL = 'sphere-ascii.stl';
const obj = (f: FixtureReader): string => latin1(f(OBJ));
const stl = (f: FixtureReader): string => latin1(f(STL));

export const BAD_INPUTS: BadInput[] = [
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
];
