import { describe, expect, it } from 'vitest';
import { batchesOf, stagePaths } from './stage-batches';
import type { DroppedItem } from './dropped-item';

const item = (relativePath: string, size = 1, root?: number): DroppedItem => ({
  file: new File([new Uint8Array(size)], relativePath.split('/').pop() ?? relativePath),
  relativePath,
  ...(root === undefined ? {} : { root }),
});

describe("web mode's staging of a drop", () => {
  it('copies same-named things dropped together apart, and each folder whole', () => {
    // Two folders "CT" from two patients' exports, a "ct" folder, two loose files "I1", a file "CT (2)".
    const dropped: DroppedItem[] = [
      item('CT/I1', 1, 0),
      item('CT/sub/I2', 1, 0),
      item('CT/I1', 1, 1),
      item('ct/I9', 1, 2),
      { file: new File(['x'], 'I1'), root: 3 },
      { file: new File(['y'], 'I1'), root: 4 },
      { file: new File(['z'], 'CT (2)'), root: 5 },
      item('CT/I3', 1, 0),
    ];
    expect(stagePaths(dropped).map((f) => f.path)).toEqual([
      'CT/I1',
      'CT/sub/I2',
      'CT (2)/I1',
      'ct (3)/I9',
      'I1',
      'I1 (2)',
      'CT (2) (2)',
      'CT/I3',
    ]);
    // A file's number goes before its extension; a long name is cut to stay within 255 bytes.
    const long = `${'é'.repeat(125)}.dcm`;
    const files = [long, long, 'scan.dcm', 'scan.dcm', '.dcm', '.dcm'].map((name, k) => ({
      file: new File(['x'], name),
      root: k,
    }));
    const paths = stagePaths(files).map((f) => f.path);
    expect(paths.slice(2)).toEqual(['scan.dcm', 'scan (2).dcm', '.dcm', '.dcm (2)']);
    expect(paths[0]).toBe(long);
    expect(paths[1]).toBe(`${'é'.repeat(123)} (2).dcm`);
    expect(new TextEncoder().encode(paths[1]).length).toBeLessThanOrEqual(255);
    // Picked from one folder (no root): their own paths, however many share the top folder.
    const picked = [item('scan/I1'), item('scan/I2'), item('scan/sub/I1')];
    expect(stagePaths(picked).map((f) => f.path)).toEqual(['scan/I1', 'scan/I2', 'scan/sub/I1']);
  });

  it('sends the files in order, in batches of at most 256 files or 16 MiB, a larger file alone', () => {
    const MiB = 1024 ** 2;
    const small = Array.from({ length: 600 }, (_, k) => item(`CT/I${k}`, 10));
    const sizes = [6 * MiB, 6 * MiB, 6 * MiB, 40 * MiB, 1];
    const large = sizes.map((size, k) => ({
      item: { file: { size, name: `L${k}` } as File },
      path: `L${k}`,
    }));
    const batches = batchesOf([...stagePaths(small), ...large]);
    expect(batches.map((b) => b.length)).toEqual([256, 256, 88 + 2, 1, 1, 1]);
    expect(batches.flat().map((f) => f.path)).toEqual([
      ...small.map((i) => i.relativePath),
      'L0',
      'L1',
      'L2',
      'L3',
      'L4',
    ]);
    for (const b of batches)
      expect(b.length === 1 || b.reduce((n, f) => n + f.item.file.size, 0) <= 16 * MiB).toBe(true);
  });
});
