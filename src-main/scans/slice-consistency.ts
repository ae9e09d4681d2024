import { sameOrientation } from './geometry.js';
import type { DicomHeader, FrameInfo } from './header-fields.js';

/**
 * Whether the frames of a series agree in size, pixel size, orientation and pixel format, for
 * layoutSlices.
 */

export const spacingWords = (s: [number, number] | undefined): string =>
  s ? `${+s[1].toFixed(4)} x ${+s[0].toFixed(4)} mm` : 'none stated';

/**
 * The first frame whose pixel size differs from the first frame's (or is stated where the first's is
 * not, or the reverse). The volume is built with one pixel size, so a frame with another would be
 * placed scaled. Equal within 0.01% and 0.1 micrometre: the same value written with other digits.
 */
export function firstOtherPixelSpacing<T extends { info: FrameInfo }>(raw: T[]): T | undefined {
  const s = raw[0]!.info.pixelSpacing;
  for (let i = 1; i < raw.length; i++) {
    const r = raw[i]!;
    const o = r.info.pixelSpacing;
    if (o === s) continue;
    if (!o || !s) return r;
    for (let d = 0; d < 2; d++) if (Math.abs(o[d]! - s[d]!) > 1e-4 + 1e-4 * Math.abs(s[d]!)) return r;
  }
  return undefined;
}

/** The first frame whose orientation is not `orientation` (within sameOrientation's tolerance). */
export function firstTilted<T extends { info: FrameInfo }>(
  raw: T[],
  orientation: readonly number[],
): T | undefined {
  for (let i = 0; i < raw.length; i++) {
    const r = raw[i]!;
    const o = r.info.orientation;
    if (!o || o === orientation) continue;
    // The files of a series repeat the same numbers: equal ones need no tolerance.
    if (
      o[0] === orientation[0] &&
      o[1] === orientation[1] &&
      o[2] === orientation[2] &&
      o[3] === orientation[3] &&
      o[4] === orientation[4] &&
      o[5] === orientation[5]
    )
      continue;
    if (!sameOrientation(o, orientation)) return r;
  }
  return undefined;
}

/** How many frames have each size ('512x512': columns x rows), in order of first appearance. */
export function sizesOf(raw: { header: DicomHeader }[]): Map<string, number> {
  const first = raw[0]!.header;
  // A series' frames nearly always share one size: then no key is built per frame.
  let one = true;
  for (let i = 0; i < raw.length; i++) {
    const h = raw[i]!.header;
    if (h.columns !== first.columns || h.rows !== first.rows) one = false;
  }
  if (one) return new Map([[`${first.columns}x${first.rows}`, raw.length]]);
  const m = new Map<string, number>();
  for (const r of raw) {
    const key = `${r.header.columns}x${r.header.rows}`;
    m.set(key, (m.get(key) ?? 0) + 1);
  }
  return m;
}

/**
 * The first file that stores its pixels otherwise than the first one, and how: signed against
 * unsigned (air read as 64,512 beside -1,024), another sample size, or colour among grey. Each file
 * reads right on its own (as pydicom reads it), but the values of such files do not make one volume.
 * Bits Stored may differ: each file's values are masked by its own.
 */
export function firstOtherPixelFormat<T extends { header: DicomHeader }>(
  raw: T[],
): { item: T; what: string } | undefined {
  const a = raw[0]!.header;
  const sign = (r: number): string => (r === 1 ? 'signed' : 'unsigned');
  for (let i = 1; i < raw.length; i++) {
    const b = raw[i]!.header;
    if (b === a) continue;
    if (b.pixelRepresentation !== a.pixelRepresentation)
      return {
        item: raw[i]!,
        what: `${sign(a.pixelRepresentation)} and ${sign(b.pixelRepresentation)} values, Pixel Representation`,
      };
    if (b.bitsAllocated !== a.bitsAllocated)
      return {
        item: raw[i]!,
        what: `${a.bitsAllocated} and ${b.bitsAllocated} bits per value, Bits Allocated`,
      };
    if (b.samplesPerPixel !== a.samplesPerPixel)
      return { item: raw[i]!, what: `${a.samplesPerPixel} and ${b.samplesPerPixel} samples per pixel` };
    // A CT's values are Hounsfield units unless its Rescale Type says otherwise: the volume is read
    // on one scale, so a series that names two would be read on the lowest slice's (a review).
    const scaleA = a.rescaleType || 'HU';
    const scaleB = b.rescaleType || 'HU';
    if (scaleA !== scaleB)
      return { item: raw[i]!, what: `values in ${scaleA} and in ${scaleB}, Rescale Type` };
  }
  return undefined;
}

/**
 * The stacks the frames belong to (their distinct Stack IDs, in order of first appearance), and
 * the first frame of the second one. An Enhanced file or series may hold several reconstructions of
 * one scan, each its own stack: merged by position, a mirrored or shifted copy 0.5 mm above each
 * slice made one volume of both. Frames without a Stack ID belong to none.
 */
export function stacksOf<T extends { info: FrameInfo }>(raw: T[]): { ids: string[]; second?: T } {
  const ids: string[] = [];
  let second: T | undefined;
  let last: string | undefined;
  for (let i = 0; i < raw.length; i++) {
    const id = raw[i]!.info.stackId;
    // The frames of a stack mostly follow each other: each ID is looked up once per run.
    if (id === undefined || id === last) continue;
    last = id;
    if (ids.includes(id)) continue;
    ids.push(id);
    if (ids.length === 2) second = raw[i];
  }
  return second ? { ids, second } : { ids };
}

/** Why frames of several stacks are refused, and what to do, in words. */
export function severalStacksWords(ids: string[]): string {
  const shown = ids.slice(0, 4);
  const named =
    ids.length > 4
      ? `${shown.join(', ')} and ${ids.length - 4} more`
      : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)!}`;
  return `The images belong to ${ids.length} different stacks (Stack IDs ${named}): separate reconstructions of the scan, such as another plane, slice thickness or filter, which do not form one volume together. Export one stack (one reconstruction) on its own and add it again.`;
}
