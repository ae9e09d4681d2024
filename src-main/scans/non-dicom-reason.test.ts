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
});
