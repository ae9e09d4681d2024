// A real series read as the slice checks see it: its volume (planes are its slices) and its layout.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { layoutSlices, type SliceLayout } from './slice-layout.js';
import { readSeriesHeaders, readVolume } from './volume-reader.js';
import type { Volume } from './volume.js';

/** The files of `dir` (or the files given), read as one volume with the layout of its slices. */
export async function slicesOf(dir: string | string[]): Promise<{ volume: Volume; layout: SliceLayout }> {
  const files =
    typeof dir === 'string'
      ? readdirSync(dir)
          .sort()
          .map((f) => join(dir, f))
      : dir;
  return { volume: await readVolume(files), layout: layoutSlices(await readSeriesHeaders(files)).layout };
}
