import { describe, expect, it } from 'vitest';
import {
  EMPTY_MEASURE_LIST,
  addPick,
  cancelPending,
  clearMeasurements,
  removeMeasurement,
} from './measurements.js';
import type { MeasureList } from './measurements.js';
import type { Vec3 } from './standard-views.js';

const pick = (list: MeasureList, ...points: Vec3[]): MeasureList => points.reduce(addPick, list);

describe('measurement list', () => {
  it('makes a measurement of each pair of picks and keeps the earlier ones', () => {
    const list = pick(EMPTY_MEASURE_LIST, [0, 0, 0], [0, 3, 4], [10, 0, 0], [10, 0, 0.5]);
    expect(list.pending).toBeNull();
    expect(list.measurements).toEqual([
      { id: 'm1', label: 1, a: [0, 0, 0], b: [0, 3, 4], distance: 5 },
      { id: 'm2', label: 2, a: [10, 0, 0], b: [10, 0, 0.5], distance: 0.5 },
    ]);
  });

  it('holds a single pick as the start of the next measurement', () => {
    const list = pick(EMPTY_MEASURE_LIST, [1, 2, 3], [1, 2, 4], [5, 5, 5]);
    expect(list.measurements).toHaveLength(1);
    expect(list.pending).toEqual([5, 5, 5]);
    const cancelled = cancelPending(list);
    expect(cancelled.pending).toBeNull();
    expect(cancelled.measurements).toBe(list.measurements);
  });

  it('removes one measurement by id without renumbering the others', () => {
    let list = pick(EMPTY_MEASURE_LIST, [0, 0, 0], [1, 0, 0], [0, 0, 0], [2, 0, 0], [0, 0, 0], [3, 0, 0]);
    list = removeMeasurement(list, 'm2');
    expect(list.measurements.map((m) => [m.label, m.distance])).toEqual([
      [1, 1],
      [3, 3],
    ]);
    // Labels are not reused: the next one is 4, so "2" never names two different distances.
    list = pick(list, [0, 0, 0], [0, 0, 4]);
    expect(list.measurements.at(-1)).toMatchObject({ label: 4, distance: 4 });
  });

  it('clears everything on demand and numbers from 1 again', () => {
    const list = pick(EMPTY_MEASURE_LIST, [0, 0, 0], [1, 0, 0], [2, 2, 2]);
    const cleared = clearMeasurements();
    expect(cleared).toEqual({ measurements: [], pending: null, next: 1 });
    expect(pick(cleared, [0, 0, 0], [0, 1, 0]).measurements[0]!.label).toBe(1);
    expect(list.measurements).toHaveLength(1);
  });
});
