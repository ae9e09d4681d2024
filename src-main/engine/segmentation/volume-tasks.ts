import { copyPlanes, type PlaneCopy } from '../../scans/plane-copy.js';
import { int16Counts } from './histogram.js';

/**
 * The volume's share of the mesh workers' work: copying an uploaded scan's planes into the shared
 * volume, and counting its values for the histogram, side by side instead of on the job's thread.
 */

/** Copies planes into the shared int16 volume; the reply is false when a value left the int16 range. */
export interface PlanesTask {
  kind: 'planes';
  planes: PlaneCopy[];
  out: Int16Array;
}

/** Counts every int16 value of data[from, to); the reply is the 65,536 counts (int16Counts). */
export interface HistogramTask {
  kind: 'histogram';
  data: Int16Array;
  from: number;
  to: number;
}

export type VolumeTask = PlanesTask | HistogramTask;

/** Runs one task (in a mesh worker). */
export function runVolumeTask(t: VolumeTask): boolean | Float64Array {
  return t.kind === 'planes' ? copyPlanes(t.planes, t.out) : int16Counts(t.data, t.from, t.to);
}
