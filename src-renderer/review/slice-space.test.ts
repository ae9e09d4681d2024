import { describe, expect, it } from 'vitest';
import {
  directionLetters,
  edgeLetters,
  patientToPixel,
  patientToVoxel,
  pixelToPatient,
  scaleBarLength,
  voxelToPatient,
} from './slice-space';

describe('slice space', () => {
  it('names the edges of standard views in LPS, as a radiologist reads them', () => {
    // Axial, as stored by a head-first supine CT: columns to the patient's left, rows to posterior.
    expect(edgeLetters({ origin: [0, 0, 0], column: [0.5, 0, 0], row: [0, 0.5, 0] })).toEqual({
      left: 'R',
      right: 'L',
      top: 'A',
      bottom: 'P',
    });
    // Coronal with the head on top; sagittal facing the patient's left side.
    expect(edgeLetters({ origin: [0, 0, 0], column: [1, 0, 0], row: [0, 0, -1] })).toMatchObject({
      top: 'S',
      bottom: 'I',
    });
    expect(edgeLetters({ origin: [0, 0, 0], column: [0, 1, 0], row: [0, 0, -1] })).toMatchObject({
      left: 'A',
      right: 'P',
    });
    // A scan stored feet-first and mirrored is named by its cosines, not by assumption.
    expect(edgeLetters({ origin: [0, 0, 0], column: [-1, 0, 0], row: [0, -1, 0] })).toEqual({
      left: 'L',
      right: 'R',
      top: 'P',
      bottom: 'A',
    });
    // Oblique: both axes that carry the direction.
    expect(directionLetters([0.8, 0.6, 0])).toBe('LP');
    expect(directionLetters([0.95, 0.1, -0.3])).toBe('L');
  });

  it('maps pixels to the patient and back, also on a sheared (tilted) plane', () => {
    const g = {
      origin: [10, -20, 30] as [number, number, number],
      column: [0.4, 0, 0] as [number, number, number],
      row: [0, 0.3, -1.2] as [number, number, number],
    };
    const p = pixelToPatient(g, 17.5, 42);
    const [u, v] = patientToPixel(g, p);
    expect(u).toBeCloseTo(17.5, 9);
    expect(v).toBeCloseTo(42, 9);
  });

  it('maps patient points to voxels and back on a tilted grid', () => {
    const grid = {
      dims: [10, 10, 10] as [number, number, number],
      origin: [1, 2, 3] as [number, number, number],
      steps: [
        [0.5, 0, 0],
        [0, 0.5, 0],
        [0, 0.2, 1.5],
      ] as [[number, number, number], [number, number, number], [number, number, number]],
    };
    const v = patientToVoxel(grid, voxelToPatient(grid, [3, 4.5, 7]));
    expect(v[0]).toBeCloseTo(3, 9);
    expect(v[1]).toBeCloseTo(4.5, 9);
    expect(v[2]).toBeCloseTo(7, 9);
  });

  it('picks a round scale bar that fits', () => {
    expect(scaleBarLength(0.5, 100)).toEqual({ mm: 50, px: 100 });
    expect(scaleBarLength(0.3, 100)).toEqual({ mm: 20, px: 20 / 0.3 });
    expect(scaleBarLength(0.01, 120).mm).toBe(1);
  });
});
