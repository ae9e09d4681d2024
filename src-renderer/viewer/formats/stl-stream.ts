/**
 * A binary STL read as its bytes arrive, its corners welded on the way (weld.ts): reading the file
 * and welding it overlap, and no triangle soup is ever made (three's STLLoader builds one, with a
 * normal per corner we would throw away). A binary STL is an 84-byte header then 50 bytes per
 * triangle: a normal, three corners of three float32 each, and two attribute bytes. The reader
 * takes the corners' float bits as they are; the welder refuses NaN and infinities.
 */
import { AppError } from '../../../src-shared/errors.js';
import { VertexWelder, finishIndex } from '../weld.js';

const HEADER = 84;
const RECORD = 50;
/** The first corner's offset in a record (after the normal), and a corner's size. */
const FIRST_CORNER = 12;
const CORNER = 12;

export interface WeldedStl {
  positions: Float32Array;
  index: Uint16Array | Uint32Array;
  degenerate: number;
  /** Time spent decoding and welding, within the time the reading took. */
  weldMs: number;
}

const changed = (): AppError =>
  new AppError('bad-input', 'The file changed while it was being read.', { action: 'Open it again.' });

/** Welds the three corners of the record at `at`; they become triangle `t`'s. */
function addRecord(view: DataView, at: number, welder: VertexWelder, corners: Uint32Array, t: number): void {
  for (let k = 0; k < 3; k++) {
    const p = at + FIRST_CORNER + k * CORNER;
    corners[t * 3 + k] = welder.add(
      view.getInt32(p, true),
      view.getInt32(p + 4, true),
      view.getInt32(p + 8, true),
    );
  }
}

/**
 * Reads and welds a binary STL of `triangles` triangles (its header's count, checked against its
 * size beforehand) from `stream`; `onBytes` hears how many bytes have been read.
 */
export async function weldBinaryStl(
  stream: ReadableStream<Uint8Array>,
  triangles: number,
  onBytes?: (read: number) => void,
): Promise<WeldedStl> {
  // A closed surface's soup has about six corners per distinct vertex.
  const welder = new VertexWelder(Math.ceil(triangles / 2));
  const corners = new Uint32Array(triangles * 3);
  // A record split between two reads is put together here.
  const carry = new Uint8Array(RECORD);
  const carryView = new DataView(carry.buffer);
  let carried = 0;
  let skip = HEADER;
  let t = 0;
  let bytes = 0;
  let weldMs = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    if (bytes > HEADER + RECORD * triangles) throw changed();
    const started = performance.now();
    let at = Math.min(skip, value.length);
    skip -= at;
    if (carried > 0) {
      const take = Math.min(RECORD - carried, value.length - at);
      carry.set(value.subarray(at, at + take), carried);
      carried += take;
      at += take;
      if (carried === RECORD) {
        addRecord(carryView, 0, welder, corners, t++);
        carried = 0;
      }
    }
    const view = new DataView(value.buffer, value.byteOffset, value.byteLength);
    for (; at + RECORD <= value.length; at += RECORD) addRecord(view, at, welder, corners, t++);
    if (at < value.length) {
      carry.set(value.subarray(at), 0);
      carried = value.length - at;
    }
    weldMs += performance.now() - started;
    onBytes?.(bytes);
  }
  if (t !== triangles || carried !== 0) throw changed();
  const positions = welder.positions();
  const { index, degenerate } = finishIndex(corners, positions);
  return { positions, index, degenerate, weldMs };
}
