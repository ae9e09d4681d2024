/**
 * STL, binary or ASCII as the shared rule (stlKind) says: binary by three's STLLoader, ASCII by the
 * statement reader the download check uses too (src-shared/stl-text.ts).
 */
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { stlKind, stlNeitherFault } from '../../../src-shared/mesh-content.js';
import { MeshFault } from '../../../src-shared/mesh-text.js';
import { StlText } from '../../../src-shared/stl-text.js';
import { HEADER_BYTES } from '../mesh-format.js';
import type { HeaderFacts } from '../mesh-format.js';
import { corrupt, decodeInBlocks, trianglesOf } from './format-reader.js';
import type { MeshFormatReader, ParsedTriangles, ParseOptions } from './format-reader.js';

/** An ASCII STL facet ("facet normal", "outer loop", 3 "vertex" lines...) takes 130 to 300 bytes. */
const ASCII_STL_BYTES_PER_TRIANGLE = 180;

function inspect(name: string, head: Uint8Array, size: number): HeaderFacts {
  const stl = stlKind(head, size);
  if (stl.kind === 'binary') return { triangles: stl.triangles, exact: true };
  if (stl.kind === 'ascii')
    return { triangles: Math.ceil(size / ASCII_STL_BYTES_PER_TRIANGLE), exact: false };
  throw corrupt(name, stlNeitherFault(head, size, stl.triangles));
}

/** An ASCII STL's facets as a triangle soup, grown as they are read. */
function readAscii(buffer: ArrayBuffer, opts: ParseOptions): ParsedTriangles {
  let soup = new Float32Array(9 * 1024);
  let corners = 0;
  const text = new StlText({
    facet(xyz) {
      if (corners + 9 > soup.length) {
        opts.checkTriangles?.(corners / 9 + 1);
        const grown = new Float32Array(soup.length * 2);
        grown.set(soup);
        soup = grown;
      }
      soup.set(xyz, corners);
      corners += 9;
    },
  });
  decodeInBlocks(new Uint8Array(buffer), text.lines, opts.onProgress);
  text.finish();
  return { positions: soup.subarray(0, corners), index: null };
}

/**
 * A binary STL's trailing padding is cut off, so that STLLoader's own size rule says binary too.
 * STLLoader never sees an ASCII STL: it reads a triangle count at byte 80 of any file, and one
 * shorter than 84 bytes was refused as truncated.
 */
function parse(buffer: ArrayBuffer, opts: ParseOptions = {}): ParsedTriangles {
  const head = new Uint8Array(buffer, 0, Math.min(buffer.byteLength, HEADER_BYTES));
  const stl = stlKind(head, buffer.byteLength);
  if (stl.kind === 'ascii') return readAscii(buffer, opts);
  if (stl.kind === 'neither') throw new MeshFault(stlNeitherFault(head, buffer.byteLength, stl.triangles));
  const whole = stl.bytes < buffer.byteLength ? buffer.slice(0, stl.bytes) : buffer;
  return trianglesOf(new STLLoader().parse(whole));
}

export const stlReader: MeshFormatReader = { label: 'STL', inspect, parse };
