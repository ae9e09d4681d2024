import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nonDicomReason } from './classify.js';

const STL = '../shared/fixtures/mesh/spider-binary.stl';

describe('files that are not scans, by name', () => {
  it('calls a mesh a mesh, and says where it goes', () => {
    const head = readFileSync(STL).subarray(0, 132);
    expect(nonDicomReason('spider-binary.stl', head, 1000)).toBe(
      'a 3D mesh (STL), not a scan: open meshes in the Viewer',
    );
    // An ASCII mesh reads as text by its bytes; its name says what it is.
    expect(nonDicomReason('jaw.obj', new TextEncoder().encode('v 0 0 0\n'), 8)).toMatch(/^a 3D mesh \(OBJ\)/);
  });

  it('still calls notes a text file', () => {
    expect(nonDicomReason('notes.txt', new TextEncoder().encode('some notes\n'), 11)).toBe(
      'a text file, not DICOM',
    );
  });

  it('names tar archives and other compressions it cannot open', () => {
    const tarHead = Buffer.alloc(512);
    tarHead.write('slice001.dcm', 0, 'latin1');
    tarHead.write('ustar\x0000', 257, 'latin1');
    expect(nonDicomReason('scan.tar', tarHead, 10240)).toBe(
      'a tar archive, which scan2mesh does not read: drop the folder itself, or a zip of it',
    );
    for (const magic of [
      [0x42, 0x5a, 0x68, 0x39],
      [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00],
      [0x28, 0xb5, 0x2f, 0xfd],
    ])
      expect(nonDicomReason('scan.bin', Buffer.from([...magic, 1, 2, 3]), 1000)).toBe(
        'a bzip2, xz or zstd compressed file, which scan2mesh cannot open (use zip)',
      );
  });
});
