import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readDicomFile } from './dicom-file.js';
import { dicomParserLib } from './dicom-parser-lib.js';
import { decodeEncapsulatedFrame } from './pixel-decode.js';
import { FIXTURES, python, tempFolders } from './scans.test-support.js';

const { fresh } = tempFolders('s2m-frames-');

afterEach(() => vi.restoreAllMocks());

describe('frames of compressed image data in several fragments, without an offset table', () => {
  it('are found once per file, not by a search over every fragment for every frame', async () => {
    // The real fragmented JPEG Lossless Enhanced CT's two frames, 100 times over, each frame in three
    // fragments, with an empty offset table (pydicom's encapsulate). A review's file of 5,000 frames
    // in 60 fragments each took 35 s to read: dicom-parser's frame search runs over all fragments.
    const out = join(fresh('many'), 'many.dcm');
    python<number>(
      String.raw`
import sys, json, pydicom
from pydicom.encaps import generate_pixel_data_frame, encapsulate
ds = pydicom.dcmread(sys.argv[1])
frames = list(generate_pixel_data_frame(ds.PixelData, 2))
ds.PixelData = encapsulate([frames[k % 2] for k in range(200)], fragments_per_frame=3, has_bot=False)
ds.NumberOfFrames = 200
ds.save_as(sys.argv[2])
print(json.dumps(200))`,
      [join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-jpegll70-fragmented-nobot.dcm'), out],
    );
    const parsed = await readDicomFile(out);
    const el = parsed.dataSet.elements.x7fe00010!;
    expect(el.fragments).toHaveLength(600);
    const table = vi.spyOn(dicomParserLib(), 'createJPEGBasicOffsetTable');
    const rows = parsed.dataSet.uint16('x00280010')!;
    const columns = parsed.dataSet.uint16('x00280011')!;
    const decoded = Array.from({ length: 200 }, (_, k) =>
      Buffer.from(decodeEncapsulatedFrame(parsed, k, 200, { rows, columns }, 2)),
    );
    expect(table).toHaveBeenCalledTimes(1);
    // Each frame is its own: the two images of the original, in turn.
    expect(decoded[0]!.equals(decoded[1]!)).toBe(false);
    for (let k = 2; k < 200; k++) expect(decoded[k]!.equals(decoded[k % 2]!), `frame ${k + 1}`).toBe(true);
  });
});
