import { basename } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import { uncompressedFrameBytes } from './header-fields.js';
import type { SliceLayout } from './slice-layout.js';
import { volumeTooLarge } from './volume-limits.js';

// The volume reader's refusals of sizes, made before it allocates or decodes anything.

/** Refuses, before anything is allocated or decoded, a volume of more than MAX_VOLUME_BYTES. */
export function checkVolumeBytes(layout: SliceLayout, asInt16: boolean): void {
  const tooLarge = volumeTooLarge(layout, asInt16);
  if (tooLarge)
    throw new AppError('bad-input', tooLarge, {
      action: 'Check the export; a dental scan is usually below 1000 x 1000 x 1000 voxels.',
    });
}

/** Refuses sizes that cannot be right before allocating anything for them. */
export function checkSizes(layout: SliceLayout, asInt16: boolean): void {
  checkVolumeBytes(layout, asInt16);
  for (const h of new Set(layout.frames.map((f) => f.header))) {
    const px = h.pixelData;
    if (!px || px.encapsulated) continue;
    const needed = uncompressedFrameBytes(h) * h.numberOfFrames;
    if (px.length < needed) {
      throw new AppError(
        'bad-input',
        `${basename(h.path)} holds less image data than its size says (${px.length} of ${needed} bytes): it is damaged.`,
        { action: 'Export the scan again from the scanner or PACS.' },
      );
    }
  }
}
