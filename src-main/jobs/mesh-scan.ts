/**
 * Reading a downloaded mesh once, front to back, in chunks of 1 MiB: the main process stays
 * responsive (each chunk is a short task) and holds one chunk, not the file. Shared by the checks
 * of mesh-check.ts and mesh-check-ply.ts.
 */
import { createReadStream } from 'node:fs';
import { MAX_COORDINATE } from '../../src-shared/mesh-content.js';

/** What is wrong with the file, in words ending the check's sentence. */
export class MeshFault extends Error {}

const CHUNK = 1 << 20;

/** Each chunk of bytes [start, end) in order. */
export async function forEachChunk(
  path: string,
  start: number,
  end: number,
  fn: (chunk: Buffer) => void,
): Promise<void> {
  if (end <= start) return;
  const stream = createReadStream(path, { start, end: end - 1, highWaterMark: CHUNK });
  for await (const chunk of stream) fn(chunk as Buffer);
}

/**
 * Each line from `start` on (without its newline), as latin1; `last` marks the final line, and
 * `newline` whether the file ends with one.
 */
export async function forEachLine(
  path: string,
  start: number,
  size: number,
  fn: (line: string, lineNo: number, last: boolean, newline: boolean) => void,
): Promise<void> {
  let carry = '';
  let lineNo = 0;
  await forEachChunk(path, start, size, (chunk) => {
    const lines = (carry + chunk.toString('latin1')).split('\n');
    carry = lines.pop()!;
    for (const line of lines) fn(line, ++lineNo, false, true);
  });
  // The last line: the piece after the last newline, or (file ending with one) the line before it.
  if (carry !== '') fn(carry, ++lineNo, true, false);
  else fn('', lineNo + 1, true, true);
}

/** A vertex's coordinate that no anatomy has: not a number, or beyond MAX_COORDINATE. */
export function coordinateFault(x: number): string | undefined {
  if (!Number.isFinite(x)) return 'a vertex has coordinates that are not numbers (NaN or infinite)';
  if (Math.abs(x) > MAX_COORDINATE)
    return `it has coordinates as large as ${Math.abs(x) < 1e9 ? fmt(x) : x.toPrecision(3)}, beyond ±${MAX_COORDINATE.toLocaleString('en-US')} mm, where no anatomy lies`;
  return undefined;
}

export function checkCoordinate(x: number): void {
  const fault = coordinateFault(x);
  if (fault) throw new MeshFault(fault);
}

export const fmt = (n: number): string => n.toLocaleString('en-US');
