/**
 * The measurement list: each pair of picked points becomes one kept measurement, so starting a
 * new one never loses the last. Pure functions over plain data; the viewer store holds the state.
 */
import type { Vec3 } from './standard-views.js';

export interface Measurement {
  id: string;
  /** Shown as "1", "2", … on the list and beside the line; numbers are not reused after removal. */
  label: number;
  a: Vec3;
  b: Vec3;
  /** Straight-line distance in the mesh's units (mm). */
  distance: number;
}

export interface MeasureList {
  measurements: Measurement[];
  /** The first point of a measurement under way, or null. */
  pending: Vec3 | null;
  /** The label the next measurement gets. */
  next: number;
}

export const EMPTY_MEASURE_LIST: MeasureList = { measurements: [], pending: null, next: 1 };

export function distance(a: Vec3, b: Vec3): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

/** A picked point: the first of a pair waits; the second completes a measurement, kept in the list. */
export function addPick(list: MeasureList, p: Vec3): MeasureList {
  if (!list.pending) return { ...list, pending: p };
  const m: Measurement = {
    id: `m${list.next}`,
    label: list.next,
    a: list.pending,
    b: p,
    distance: distance(list.pending, p),
  };
  return { measurements: [...list.measurements, m], pending: null, next: list.next + 1 };
}

export function removeMeasurement(list: MeasureList, id: string): MeasureList {
  return { ...list, measurements: list.measurements.filter((m) => m.id !== id) };
}

/** Drops the point of a measurement under way, keeping the finished ones. */
export function cancelPending(list: MeasureList): MeasureList {
  return list.pending ? { ...list, pending: null } : list;
}

/** Everything gone; numbering starts again at 1. */
export function clearMeasurements(): MeasureList {
  return EMPTY_MEASURE_LIST;
}
