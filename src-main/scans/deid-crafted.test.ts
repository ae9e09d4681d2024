// Files crafted to slip past de-identification or break its output, each found by a review and run
// through the app's packaging (packageSeries) as an upload is: what the file hides must not reach
// the package, and what is written must read back whole in pydicom.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src-shared/errors.js';
import { packageSeries } from './package-series.js';
import { phantomBySlice, pydicomMissing, python, tempFolders } from './scans.test-support.js';
import { unzip } from './zip.test-support.js';

const { fresh } = tempFolders('s2m-deid-crafted-');

/** One phantom slice changed by a pydicom script (`ds` is the slice, `out` the path it is saved to). */
function crafted(name: string, script: string): string {
  const out = join(fresh(name), `${name}.dcm`);
  python(
    `import sys, struct, pydicom
from pydicom.uid import ImplicitVRLittleEndian
ds = pydicom.dcmread(sys.argv[1]); out = sys.argv[2]
${script}
print('[]')`,
    [phantomBySlice()[70]!, out],
  );
  return out;
}

async function packaged(file: string): Promise<Buffer> {
  const pkg = await packageSeries([{ path: file, size: 0 }], false, 'scan', {
    deidentify: true,
    outDir: fresh('out'),
  });
  const entries = [...(await unzip(readFileSync(pkg.path))).values()];
  expect(entries).toHaveLength(1);
  return entries[0]!;
}

const refusal = (file: string): Promise<unknown> =>
  packageSeries([{ path: file, size: 0 }], false, 'scan', { deidentify: true, outDir: fresh('out') }).catch(
    (e: unknown) => e,
  );

/** What pydicom reads of a written file: its element count, rows and whether the pixels are there. */
function readBack(bytes: Buffer): { elements: number; rows: number; pixels: boolean; tags: string[] } {
  const path = join(fresh('read'), 'out.dcm');
  writeFileSync(path, bytes);
  return python(
    `import sys, json, pydicom
ds = pydicom.dcmread(sys.argv[1])
print(json.dumps({'elements': len(ds), 'rows': int(ds.get('Rows', 0)), 'pixels': 'PixelData' in ds,
  'tags': ['%08x' % int(e.tag) for e in ds]}))`,
    [path],
  );
}

const noPydicom = pydicomMissing();

describe.skipIf(noPydicom !== null)(
  `de-identification of crafted files${noPydicom ? ` (skipped: ${noPydicom})` : ''}`,
  () => {
    it('refuses Burned In Annotation written NO\\YES: NO is believed only alone', async () => {
      const file = crafted('burned-multi', `ds.BurnedInAnnotation = ['NO', 'YES']; ds.save_as(out)`);
      const err = await refusal(file);
      expect(isAppError(err) && err.code).toBe('burned-in-annotation');
    });

    it('leaves out a number whose bytes an implicit VR reader takes for a sequence, and the file reads whole', async () => {
      // Acquisition Matrix (US) whose bytes start like an item holding a sequence: written back as a
      // sequence under a US tag, pydicom read the output to there only, without pixels or a word.
      const file = crafted(
        'implicit-us-items',
        `def el(tag, value): return struct.pack('<HHI', tag >> 16, tag & 0xffff, len(value)) + value
inner = el(0x00283002, struct.pack('<3H', 8, 0, 16))
seq = el(0x00283000, struct.pack('<HHI', 0xfffe, 0xe000, len(inner)) + inner)
value = struct.pack('<HHI', 0xfffe, 0xe000, len(seq)) + seq
ds.file_meta.TransferSyntaxUID = ImplicitVRLittleEndian
ds.is_implicit_VR = True; ds.is_little_endian = True
ds.add_new(0x00181310, 'US', list(struct.unpack('<%dH' % (len(value) // 2), value)))
ds.save_as(out, write_like_original=False)`,
      );
      const back = readBack(await packaged(file));
      expect(back).toMatchObject({ rows: 512, pixels: true });
      expect(back.elements).toBeGreaterThan(40);
      expect(back.tags).not.toContain('00181310');
    });

    it('leaves out binary numbers holding more values than their attribute has, keeps those that fit', async () => {
      // 16 bytes of a name under Acquisition Matrix (4 US values: 8 bytes), 2 FD values of text under
      // Reconstruction Target Center (3 values); the slice's own Rescale and Pixel Spacing stay.
      const file = crafted(
        'numbers',
        `from pydicom.dataelem import DataElement
ds.add(DataElement(0x00181310, 'US', list(struct.unpack('<8H', b'NUMDOE^JOHN^MRN1'))))
ds.add(DataElement(0x00189318, 'FD', list(struct.unpack('<2d', b'FDDOEJANE4711815'))))
ds.add(DataElement(0x00280106, 'US', 0))
ds.add(DataElement(0x00209057, 'UL', 1))
ds.save_as(out)`,
      );
      const bytes = await packaged(file);
      for (const hidden of ['NUMDOE', 'FDDOEJANE']) expect(bytes.includes(Buffer.from(hidden))).toBe(false);
      const back = readBack(bytes);
      expect(back.tags).not.toContain('00181310');
      expect(back.tags).not.toContain('00189318');
      // Smallest Image Pixel Value is no number a CT is read by (deid-profile.ts NUMBERS_KEPT);
      // In-Stack Position Number is, and holds one value, as its attribute does.
      expect(back.tags).not.toContain('00280106');
      expect(back.tags).toContain('00209057');
      expect(back).toMatchObject({ rows: 512, pixels: true });
    });

    it('keeps only the UIDs the standard defines in class attributes: digits after its root are replaced', async () => {
      const file = crafted(
        'class-uids',
        `ds.add_new(0x00080062, 'UI', ['1.2.840.10008.5.1.4.1.1.2', '1.2.840.10008.19650312.4711815'])
ds.save_as(out)`,
      );
      const bytes = await packaged(file);
      expect(bytes.includes(Buffer.from('19650312'))).toBe(false);
      const path = join(fresh('classes'), 'out.dcm');
      writeFileSync(path, bytes);
      const classes = python<{ sop: string; inStudy: string[] }>(
        `import sys, json, pydicom
ds = pydicom.dcmread(sys.argv[1])
print(json.dumps({'sop': ds.SOPClassUID, 'inStudy': list(ds.SOPClassesInStudy)}))`,
        [path],
      );
      expect(classes.sop).toBe('1.2.840.10008.5.1.4.1.1.2');
      expect(classes.inStudy[0]).toBe('1.2.840.10008.5.1.4.1.1.2');
      expect(classes.inStudy[1]).toMatch(/^2\.25\.\d+$/);
    });

    it('refuses a UID list that replacing its UIDs makes too long to write, in words', async () => {
      const file = crafted(
        'many-uids',
        `ds.add_new(0x00081155, 'UI', ['1.%d' % i for i in range(1, 9000)]); ds.save_as(out)`,
      );
      const err = await refusal(file);
      expect(isAppError(err) && err.code).toBe('bad-input');
      expect((err as Error).message).toMatch(
        /^This series was not sent de-identified: one of its files has a value in \(0008,1155\) that would be \d+ bytes once its UIDs are replaced, more than its kind of value can hold\.$/,
      );
    });

    it('leaves out private data after the pixel data, and refuses a file with attributes after it', async () => {
      const after = (name: string, tail: string): string =>
        crafted(
          name,
          `ds.file_meta.TransferSyntaxUID = ImplicitVRLittleEndian
ds.is_implicit_VR = True; ds.is_little_endian = True
ds.save_as(out, write_like_original=False)
el = lambda tag, value: struct.pack('<HHI', tag >> 16, tag & 0xffff, len(value)) + value
open(out, 'ab').write(${tail})`,
        );
      // Zero bytes to the end of the file (a writer's padding, read as (0000,0000)): left out.
      const zeros = await packaged(after('zeros-after', `bytes(16)`));
      expect(readBack(zeros)).toMatchObject({ rows: 512, pixels: true });
      // A private group after the pixels (7FE1,xxxx) is no part of the image: left out unread.
      const bytes = await packaged(after('private-after', `el(0x7fe11001, b'DOEJOHN ')`));
      expect(bytes.includes(Buffer.from('DOEJOHN'))).toBe(false);
      expect(readBack(bytes)).toMatchObject({ rows: 512, pixels: true });
      // 1 MB of UIDs (it took 5 s and 470 MB to replace): out of order.
      const uids = `'\\\\'.join('1.%d' % i for i in range(1, 120000)).encode()`;
      const err = await refusal(after('uids-after', `el(0x00081155, ${uids} + b'\\0')`));
      expect(isAppError(err) && err.code).toBe('bad-input');
      expect((err as Error).message).toBe(
        'This series was not sent de-identified: one of its files has (0008,1155) after its pixel data, out of order.',
      );
      // A Rescale Intercept that hides the one before the pixels (dropped, the upload lost its
      // intercept without a word): a second value of an element the app reads, refused when the file
      // is read.
      const twice = await refusal(after('intercept-after', `el(0x00281052, b'-24 ')`));
      expect(isAppError(twice) && twice.code).toBe('bad-input');
      expect((twice as Error).message).toMatch(/holds the element \(0028,1052\) twice/);
    });
  },
);
