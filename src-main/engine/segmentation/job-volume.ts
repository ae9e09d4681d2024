import { AppError } from '../../../src-shared/errors.js';
import type { PlaneCopy } from '../../scans/plane-copy.js';
import type { SliceSource } from '../../scans/slice-source.js';
import { readVolumeForSegmentation } from '../../scans/volume-reader.js';
import type { Volume } from '../../scans/volume.js';
import type { RunsPart } from './components.js';
import { int16Histogram, type Histogram } from './histogram.js';
import type { SlabPool } from './iso-surface.js';

/**
 * A job's volume, read with the mesh workers' help: the planes of an uploaded scan held in shared
 * memory are copied into the volume side by side, its values counted and a tissue's runs found side
 * by side, instead of one after the other on the job's thread (the workers are up and idle by then).
 */

/** Modalities whose grey values mean nothing to thresholds made for X-ray attenuation. */
const NOT_XRAY: Record<string, string> = {
  MR: 'an MR scan',
  PT: 'a PET scan',
  NM: 'a nuclear medicine scan',
  US: 'an ultrasound',
};

/** A job's volume, and its histogram as the workers count it. */
export interface JobVolume {
  volume: Volume;
  /** Counted while this thread checks the slices (undefined: not int16 in shared memory). */
  histogram: Promise<Histogram | undefined>;
}

/**
 * Reads the volume onto a SharedArrayBuffer (the one copy the mesh workers read in place), and refuses,
 * with the reasons, a series unfit for a model (the check the series summary shows) and one that is
 * not X-ray attenuation. The workers count the values while this thread checks the slices (a tenth
 * of a second on a head CT, the workers idle otherwise).
 */
export async function readJobVolume(
  files: string[],
  source: SliceSource,
  pool: SlabPool,
  signal?: AbortSignal,
  /** Told as planes are read, and as parts of them are copied into the volume by the workers. */
  onRead?: (step: 'planes' | 'copied', done: number, total: number) => void,
): Promise<JobVolume> {
  let histogram: Promise<Histogram | undefined> | undefined;
  const read = await readVolumeForSegmentation(files, {
    source,
    shared: true,
    copyPlanes: (planes, out) => copyOnWorkers(planes, out, pool, (d, n) => onRead?.('copied', d, n)),
    onPlanes: (done, total) => onRead?.('planes', done, total),
    onDecoded: (volume) => {
      histogram = countOnWorkers(volume.data, pool);
      // A check that refuses the scan leaves this unread: its failure (the pool closed) is no one's.
      histogram.catch(() => {});
    },
    ...(signal ? { signal } : {}),
  });
  const kind = read.modality ? NOT_XRAY[read.modality] : undefined;
  if (kind) {
    throw new AppError(
      'bad-input',
      `The scan is ${kind} (modality ${read.modality}); the local engine segments CT and CBCT scans.`,
      {
        action: 'Choose the CBCT series of the patient.',
      },
    );
  }
  const [nx, ny, nz] = read.dims;
  if (nx < 2 || ny < 2 || nz < 2) {
    throw new AppError(
      'bad-input',
      `The scan has ${nx} x ${ny} x ${nz} voxels: a volume needs at least two slices.`,
      {
        action: 'Send the whole series, not a single slice.',
      },
    );
  }
  return { volume: read, histogram: histogram ?? countOnWorkers(read.data, pool) };
}

/** Parts per worker: small enough that a slower thread does not hold the others up. */
const PARTS_PER_WORKER = 4;

async function copyOnWorkers(
  planes: PlaneCopy[],
  out: Int16Array,
  pool: SlabPool,
  onCopied?: (done: number, total: number) => void,
): Promise<boolean> {
  const parts = Math.min(planes.length, pool.size * PARTS_PER_WORKER);
  let done = 0;
  const tasks = Array.from({ length: parts }, (_, p) => {
    const chunk = planes.slice(
      Math.round((planes.length * p) / parts),
      Math.round((planes.length * (p + 1)) / parts),
    );
    const copied = pool.run({ kind: 'planes', planes: chunk, out }) as Promise<boolean>;
    return copied.then((inRange) => {
      onCopied?.(++done, parts);
      return inRange;
    });
  });
  return (await Promise.all(tasks)).every(Boolean);
}

/** The histogram of an int16 volume in shared memory, counted on the workers; undefined otherwise. */
async function countOnWorkers(
  data: Int16Array | Float32Array,
  pool: SlabPool,
): Promise<Histogram | undefined> {
  if (!(data instanceof Int16Array) || !(data.buffer instanceof SharedArrayBuffer)) return undefined;
  const parts = pool.size * 2;
  const counts = await Promise.all(
    Array.from({ length: parts }, (_, p) => {
      const from = Math.round((data.length * p) / parts);
      const to = Math.round((data.length * (p + 1)) / parts);
      return pool.run({ kind: 'histogram', data, from, to }) as Promise<Float64Array>;
    }),
  );
  const total = counts[0] as Float64Array;
  for (const c of counts.slice(1)) for (let b = 0; b < c.length; b++) total[b]! += c[b] as number;
  return int16Histogram(total);
}

/**
 * The runs of the voxels above `level`, found by the workers a share of the rows each; undefined
 * for a volume not in shared memory (segmentTissue then finds them itself).
 */
export async function runsOnWorkers(
  volume: Volume,
  level: number,
  pool: SlabPool,
): Promise<RunsPart[] | undefined> {
  if (!(volume.data.buffer instanceof SharedArrayBuffer)) return undefined;
  const [nx, ny, nz] = volume.dims;
  const rows = ny * nz;
  const parts = Math.min(rows, pool.size * PARTS_PER_WORKER);
  const data = volume.data;
  return Promise.all(
    Array.from({ length: parts }, (_, p) => {
      const r0 = Math.round((rows * p) / parts);
      const r1 = Math.round((rows * (p + 1)) / parts);
      return pool.run({ kind: 'runs', data, level, nx, r0, r1 }) as Promise<RunsPart>;
    }),
  );
}
