// The card says before Submit what packaging would refuse without acceptance: the series summary and
// the de-identified package judge burned-in patient data from the same facts (burned-in.ts).
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src-shared/errors.js';
import { ScanService } from './scan-service.js';
import { phantomBySlice, pydicomMissing, python, tempFolders } from './scans.test-support.js';

const { fresh } = tempFolders('s2m-burned-');

/** Four real phantom slices with `setup` (pydicom statements on `ds`) applied, in a folder of their own. */
function variant(setup: string): string {
  const dir = fresh('variant');
  python(
    `import sys, pydicom
for i, f in enumerate(sys.argv[2:]):
    ds = pydicom.dcmread(f)
    ${setup}
    ds.save_as('%s/v%d.dcm' % (sys.argv[1], i))
print('[]')`,
    [dir, ...phantomBySlice().slice(80, 84)],
  );
  return dir;
}

async function judged(dir: string): Promise<{ card: string | undefined; packaged: unknown }> {
  const service = new ScanService({ tempDir: fresh('work') });
  try {
    const [series] = (await service.intake([dir])).series;
    const packaged = await service
      .packageForUpload(series!.id, { deidentify: true, outDir: fresh('out') })
      .then(() => 'sent')
      .catch((e: unknown) => (isAppError(e) ? e.code : e));
    return { card: series!.burnedInAnnotation, packaged };
  } finally {
    await service.dispose();
  }
}

describe.skipIf(pydicomMissing())('burned-in patient data on the series card', () => {
  it('says a recognisable face before Submit, as packaging refuses it', async () => {
    const r = await judged(variant("ds.RecognizableVisualFeatures = 'YES'"));
    expect(r.card).toMatch(/recognisably/);
    expect(r.packaged).toBe('burned-in-annotation');
  });

  it('says a screen save before Submit, as packaging refuses it', async () => {
    const r = await judged(variant("ds.ImageType = ['DERIVED', 'SECONDARY', 'SCREEN SAVE']"));
    expect(r.card).toMatch(/secondary/);
    expect(r.packaged).toBe('burned-in-annotation');
  });

  it('does not flag a reformatted CT (DERIVED\\SECONDARY), which shows no text', async () => {
    const r = await judged(variant("ds.ImageType = ['DERIVED', 'SECONDARY', 'AXIAL']"));
    expect(r.card).toBeUndefined();
    expect(r.packaged).toBe('sent');
  });
});
