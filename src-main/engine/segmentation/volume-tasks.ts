import { AppError } from '../../../src-shared/errors.js';
import { RegionReadError } from '../../scans/file-region.js';
import { copyPlanes, type PlaneCopy } from '../../scans/plane-copy.js';
import { runsAboveInRows, type RunsPart } from './components.js';
import { int16Counts } from './histogram.js';

/**
 * The volume's share of the mesh workers' work: copying an uploaded scan's planes into the shared
 * volume, counting its values for the histogram, and finding the runs of a tissue's voxels, side by
 * side instead of one after the other on the job's thread.
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

/** Finds the runs of voxels above `level` in rows [r0, r1); the reply is a RunsPart. */
export interface RunsTask {
  kind: 'runs';
  data: Int16Array | Float32Array;
  level: number;
  nx: number;
  r0: number;
  r1: number;
}

export type VolumeTask = PlanesTask | HistogramTask | RunsTask;
export type VolumeReply = boolean | Float64Array | RunsPart;

/** Runs one task (in a mesh worker). */
export function runVolumeTask(t: VolumeTask): VolumeReply {
  if (t.kind === 'planes') {
    try {
      return copyPlanes(t.planes, t.out);
    } catch (e) {
      // The upload's zip changed under the job (its slices are read where they lie in it).
      if (e instanceof RegionReadError)
        throw new AppError('bad-input', `The uploaded scan cannot be read whole (${e.message}).`, {
          action: 'Submit the scan again.',
        });
      throw e;
    }
  }
  if (t.kind === 'histogram') return int16Counts(t.data, t.from, t.to);
  return runsAboveInRows(t.data, t.level, t.nx, t.r0, t.r1);
}

/** The buffers of a reply that go back to the caller without a copy. */
export function replyTransfers(r: VolumeReply): ArrayBuffer[] {
  if (r instanceof Float64Array) return [r.buffer as ArrayBuffer];
  if (typeof r === 'boolean') return [];
  return [r.counts.buffer, r.st.buffer, r.en.buffer] as ArrayBuffer[];
}
