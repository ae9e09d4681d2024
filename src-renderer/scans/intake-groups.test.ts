import { describe, expect, it } from 'vitest';
import { actionFor, groupByReason } from './intake-groups';

// The skipped list the core gives for the files of fixtures/dicom/bad plus a .txt and an .stl.
const SKIPPED = [
  {
    path: 'bad/ct-no-preamble-no-meta.dcm',
    reason: 'not a DICOM file (its content is not DICOM, whatever its name)',
  },
  { path: 'bad/explicit-le-no-preamble-no-meta.dcm', reason: 'a radiotherapy plan, not an image' },
  { path: 'bad/meta-missing-transfer-syntax.dcm', reason: 'DICOM without image data' },
  { path: 'bad/notes.txt', reason: 'a text file, not DICOM' },
  { path: 'bad/rtplan-no-pixeldata.dcm', reason: 'a radiotherapy plan, not an image' },
  { path: 'bad/spider-binary.stl', reason: 'a 3D mesh (STL), not a scan: open meshes in the Viewer' },
  { path: 'bad/structured-report-no-pixeldata.dcm', reason: 'a structured report (text), not an image' },
];

describe('a bad drop grouped by reason', () => {
  it('lists every file once, under its reason, the largest group first', () => {
    const groups = groupByReason([], SKIPPED);
    expect(groups.flatMap((g) => g.items.map((i) => i.file)).sort()).toEqual(
      SKIPPED.map((s) => s.path).sort(),
    );
    expect(groups).toHaveLength(6);
    expect(groups[0]).toMatchObject({ reason: 'A radiotherapy plan, not an image' });
    expect(groups[0]!.items).toHaveLength(2);
    for (const g of groups) expect(g.action.length).toBeGreaterThan(10);
  });

  it('groups file problems by kind with each file’s own words, and keeps a drop-wide problem alone', () => {
    const groups = groupByReason(
      [
        {
          severity: 'error',
          code: 'truncated-file',
          message: 'a.dcm is incomplete: it ends 10 bytes early.',
          file: 'a.dcm',
        },
        {
          severity: 'error',
          code: 'truncated-file',
          message: 'b.dcm is incomplete: it ends 99 bytes early.',
          file: 'b.dcm',
        },
        { severity: 'error', code: 'nothing-usable', message: 'No series can be used.' },
      ],
      [],
    );
    expect(groups.map((g) => g.reason)).toEqual(['Files cut off before their end', 'No series can be used.']);
    expect(groups[0]!.items.map((i) => i.detail)).toEqual([
      'a.dcm is incomplete: it ends 10 bytes early.',
      'b.dcm is incomplete: it ends 99 bytes early.',
    ]);
  });

  it('titles even one damaged file by its kind, its own words (with its name) below', () => {
    const message =
      'huge.dcm is a damaged or incomplete DICOM file and was left out (its header is cut off or has wrong lengths).';
    const [group] = groupByReason(
      [{ severity: 'error', code: 'corrupt-file', message, file: 'huge.dcm' }],
      [],
    );
    expect(group).toMatchObject({ reason: 'Damaged files', items: [{ file: 'huge.dcm', detail: message }] });
  });

  it('says what to do for each kind of file', () => {
    expect(actionFor('a 3D mesh (STL), not a scan: open meshes in the Viewer')).toMatch(/Viewer/);
    expect(actionFor('a 7-Zip or RAR archive, which scan2mesh cannot open (use zip)')).toMatch(/\.zip/);
    expect(actionFor('not a DICOM file (its content is not DICOM, whatever its name)')).toMatch(
      /export it again/,
    );
  });
});
