// Headers whose pixel values cannot be densities, refused when the files are looked at (a review's
// crafted copies of the real phantom): before, inspect called them fit, and the job then failed for
// a reason that named the wrong fault ("no bone was found", "too little contrast") or made a mesh.
import { describe, expect, it } from 'vitest';
import type { SeriesSummary } from '../../src-shared/scans.js';
import { isUsable } from '../../src-shared/series-usable.js';
import { intake } from './intake.js';
import { phantomBySlice, python, tempFolders } from './scans.test-support.js';

const { fresh } = tempFolders('s2m-pixel-meaning-');

/** The phantom's first 30 slices with `change` (Python, on `ds`) applied to each, as intake sees them. */
async function variant(change: string): Promise<SeriesSummary> {
  const out = fresh('variant');
  python<number>(
    String.raw`
import sys, os, json, pydicom
out = sys.argv[1]
for f in sys.argv[2:]:
    ds = pydicom.dcmread(f)
    ${change}
    ds.save_as(os.path.join(out, os.path.basename(f)))
print(json.dumps(len(sys.argv) - 2))`,
    [out, ...phantomBySlice().slice(0, 30)],
  );
  const { result } = await intake([out], { tempDir: fresh('work') });
  expect(result.series).toHaveLength(1);
  return result.series[0]!;
}

const problem = (s: SeriesSummary, code: string): string | undefined =>
  s.problems.find((p) => p.code === code && p.severity === 'error')?.message;

describe('pixel values that are no densities', () => {
  it('a Pixel Representation other than 0 or 1', async () => {
    const s = await variant('ds.PixelRepresentation = 2');
    expect(problem(s, 'pixel-format')).toBe(
      "The images give Pixel Representation 2, which DICOM defines only as 0 (unsigned) or 1 (signed): whether a pixel's value is negative cannot be known, so its density cannot be read.",
    );
    expect(isUsable(s)).toBe(false);
  });

  it('palette colours', async () => {
    const s = await variant("ds.PhotometricInterpretation = 'PALETTE COLOR'");
    expect(problem(s, 'colour-image')).toMatch(
      /^These images are stored as palette colours \(PALETTE COLOR\)/,
    );
    expect(isUsable(s)).toBe(false);
  });

  it('no samples per pixel', async () => {
    const s = await variant('ds.SamplesPerPixel = 0');
    expect(problem(s, 'pixel-format')).toBe(
      'The images say each pixel holds 0 values (Samples per Pixel), which cannot be: the files are damaged.',
    );
  });

  it('too few bits kept of each value', async () => {
    const s = await variant('ds.BitsStored = 1; ds.HighBit = 0');
    expect(s.fitness.reasons).toContain(
      "The images keep only 1 bit of each pixel's value (Bits Stored 1): at most 2 grey values, too few to tell bone and teeth from soft tissue by their density (CT keeps 12 or more, a CBCT export at least 8).",
    );
    // 8 bits, as some CBCT exports keep, is read.
    const eight = await variant('ds.BitsStored = 8; ds.HighBit = 7');
    expect(eight.fitness.reasons.join(' ')).not.toMatch(/Bits Stored/);
  });
});
