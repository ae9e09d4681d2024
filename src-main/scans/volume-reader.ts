import { basename } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import { unreadableWords } from './classify.js';
import { DicomParseError, parseFailure, type ParsedDicom } from './dicom-file.js';
import { prepareCodec } from './codecs.js';
import type { DicomHeader } from './header-fields.js';
import { fieldsOfRead } from './header-read.js';
import { transferSyntax } from './transfer-syntax.js';
import { PixelDecodeError, frameStoredValues, checkPixelFormat } from './pixel-decode.js';
import {
  Int16Overflow,
  planeCopyInPlace,
  planeCopyInRegion,
  storedValuesInPlace,
  writeStored,
} from './frame-values.js';
import type { PlaneCopy } from './plane-copy.js';
import { fitnessInputOf } from './fitness-input.js';
import { segmentationFitness } from './segmentation-fitness.js';
import { checkSliceLevels } from './slice-levels.js';
import { checkSlicesAlike } from './slice-likeness.js';
import { checkNoRepeatedImages } from './slice-copies.js';
import { checkSlicesInPlace } from './slice-placement.js';
import { layoutSlices, type FrameRef, type SliceLayout } from './slice-layout.js';
import { diskSlices, type SliceSource } from './slice-source.js';
import { planeSources } from './stack-grid.js';
import { movePadding, volumePadding } from './volume-padding.js';
import type { Volume } from './volume.js';
import { int16Fits, volumeTooLarge } from './volume-limits.js';
import { checkSizes, checkVolumeBytes } from './volume-size-checks.js';

function canceled(): AppError {
  return new AppError('canceled', 'Reading the scan was canceled.');
}

/**
 * Reads the headers of the given files (one series, or one multi-frame file), refusing anything
 * that is not an image of that series. Shared by readVolume and the preview.
 */
export async function readSeriesHeaders(
  files: string[],
  signal?: AbortSignal,
  source: SliceSource = diskSlices,
): Promise<DicomHeader[]> {
  if (files.length === 0) {
    throw new AppError('bad-input', 'No scan files were given.', {
      action: 'Choose a DICOM series folder, zip or file.',
    });
  }
  const headers: DicomHeader[] = [];
  for (const [i, path] of files.entries()) {
    if (signal?.aborted) throw canceled();
    let read;
    try {
      read = source.header(path);
    } catch (e) {
      throw fileError(path, e);
    }
    if ('notDicom' in read) {
      throw new AppError('bad-input', `${basename(path)} is not a DICOM file.`, {
        action: 'Give only the DICOM files of one series.',
      });
    }
    try {
      headers.push(fieldsOfRead(path, read).header);
    } catch (e) {
      // A header read whole can still hold fields that cannot be right (a frame count the file has
      // no room for): the file is damaged, as classify-file.ts says of it too.
      throw fileError(path, parseFailure(e));
    }
    // Header reads are synchronous (fast); let other work run between batches.
    if (i % 16 === 15) await new Promise<void>((r) => setImmediate(r));
  }
  return headers;
}

function fileError(path: string, e: unknown): AppError {
  if (e instanceof AppError) return e;
  const name = basename(path);
  if (e instanceof DicomParseError) {
    return new AppError('bad-input', `${name} is damaged or incomplete and cannot be read (${e.message}).`, {
      action: 'Export the scan again from the scanner or PACS.',
      cause: e,
    });
  }
  if (e instanceof PixelDecodeError) {
    return new AppError('bad-input', `The images in ${name} cannot be read: ${e.message}.`, {
      action:
        e.kind === 'unsupported'
          ? 'Export the scan again without compression (Explicit VR Little Endian), or as RLE or JPEG-LS (lossless).'
          : 'Export the scan again from the scanner or PACS.',
      cause: e,
    });
  }
  return new AppError('bad-input', `${name} cannot be opened (${unreadableWords(e)}).`, {
    action: 'Check that the file exists and that you may read it.',
    cause: e,
  });
}

/**
 * Reads the slices of ONE series (or one multi-frame file) into a volume: frames ordered along the
 * slice normal and placed at their true positions along the stack (unevenly spaced stacks are
 * interpolated onto a regular grid, see stack-grid.ts), Rescale Slope/Intercept applied, Enhanced
 * multi-frame per-frame positions honoured. Uncompressed, RLE and JPEG Lossless pixel data are
 * decoded; other compressions are refused with AppError('bad-input'). Files are read one at a time,
 * so memory is the volume plus one file. For display: see readVolumeForSegmentation for a model.
 */
export async function readVolume(
  files: string[],
  opts: VolumeReadOptions & { signal?: AbortSignal } = {},
): Promise<Volume> {
  const headers = await readSeriesHeaders(files, opts.signal, opts.source);
  return volumeFromHeaders(headers, opts.signal, opts);
}

/**
 * Like readVolume, but first refuses (AppError 'bad-input', with the reasons in words) a series
 * that segmentationFitness finds unfit for a model: the same check the series summary shows.
 */
export async function readVolumeForSegmentation(
  files: string[],
  opts: VolumeReadOptions & { signal?: AbortSignal } = {},
): Promise<Volume> {
  const headers = await readSeriesHeaders(files, opts.signal, opts.source);
  return volumeFromHeaders(headers, opts.signal, { ...opts, requireFit: true });
}

/** How a volume is read, beyond which files. */
export interface VolumeReadOptions {
  source?: SliceSource;
  /** The voxels on a SharedArrayBuffer, for worker threads to read in place (no copy later). */
  shared?: boolean;
  /**
   * Copies int16 planes elsewhere (the local engine: on its mesh workers, side by side): given the
   * planes whose samples lie in shared memory or in a file, resolves false when a value left the
   * int16 range.
   */
  copyPlanes?: (planes: PlaneCopy[], out: Int16Array) => Promise<boolean>;
  /** Told every few planes read (done of total): a big or compressed series takes seconds. */
  onPlanes?: (done: number, total: number) => void;
  /** Given the volume once decoded, before the checks of a model's slices: work that can run meanwhile. */
  onDecoded?: (volume: Volume) => void;
}

export async function volumeFromHeaders(
  headers: DicomHeader[],
  signal?: AbortSignal,
  opts: VolumeReadOptions & { requireFit?: boolean } = {},
): Promise<Volume> {
  const seriesUids = new Set(headers.map((h) => h.seriesUid));
  if (seriesUids.size > 1) {
    throw new AppError(
      'bad-input',
      `The files belong to ${seriesUids.size} different series; a volume is made from one.`,
      { action: 'Choose the files of a single series.' },
    );
  }
  for (const h of headers) {
    if (!h.pixelData) {
      throw new AppError('bad-input', `${basename(h.path)} holds no image.`, {
        action: 'Give only the image files of one series.',
      });
    }
    try {
      checkPixelFormat(h);
    } catch (e) {
      throw fileError(h.path, e);
    }
  }
  const { layout, problems } = layoutSlices(headers);
  const fatal = problems.find((p) => p.severity === 'error');
  if (fatal) {
    throw new AppError('bad-input', fatal.message, {
      action: 'Choose the files of a single, complete series.',
    });
  }
  if (opts.requireFit) {
    const fitness = segmentationFitness(fitnessInputOf(headers, layout, problems));
    if (!fitness.fit) {
      throw new AppError('bad-input', `This scan cannot be made into a model: ${fitness.reasons.join(' ')}`, {
        action: 'Choose the complete CT or cone-beam CT series of the jaw.',
      });
    }
  }
  const wantInt16 = int16Fits(layout);
  checkSizes(layout, wantInt16);
  for (const uid of new Set(headers.map((h) => h.transferSyntaxUid))) {
    if (!(await prepareCodec(uid))) {
      throw new AppError(
        'bad-input',
        `The decoder for ${transferSyntax(uid).name} images could not be started on this computer.`,
        {
          action: 'Export the scan again without compression (Explicit VR Little Endian).',
        },
      );
    }
  }
  let volume: Volume;
  try {
    volume = await decodeVolume(layout, wantInt16, opts, signal);
  } catch (e) {
    if (!(e instanceof Int16Overflow)) throw e;
    // A value outside the int16 range after all (unusual headers): read again as floats, which take
    // twice the memory.
    checkVolumeBytes(layout, false);
    volume = await decodeVolume(layout, false, opts, signal);
  }
  opts.onDecoded?.(volume);
  // A model is made only of slices that decoded to images of the scan (a preview shows what there is).
  if (opts.requireFit) {
    const slices = await slicesAsRead(volume, layout, opts, signal);
    if (slices) {
      checkSlicesAlike(slices.volume, slices.layout);
      checkNoRepeatedImages(slices.volume, slices.layout);
      checkSlicesInPlace(slices.volume, slices.layout);
    }
    checkSliceLevels(volume, layout);
  }
  return volume;
}

/**
 * The slices side by side, one plane each, for the checks that compare neighbours: the volume itself
 * when its planes are its slices, else (a grid rebuilt on uneven spacing, whose planes blend two
 * slices) the slices read again on their own. A review put another image 0.5 mm past the end of a
 * stack: only "uneven spacing" was said, and the model was made with it. Undefined when the slices
 * alone would take more memory than a volume may.
 */
async function slicesAsRead(
  volume: Volume,
  layout: SliceLayout,
  opts: VolumeReadOptions,
  signal?: AbortSignal,
): Promise<{ volume: Volume; layout: SliceLayout } | undefined> {
  if (!layout.stack.resampled) return { volume, layout };
  const asSlices: SliceLayout = {
    ...layout,
    stack: { ...layout.stack, resampled: false, count: layout.frames.length, step: layout.sliceSpacing },
  };
  const asInt16 = volume.data instanceof Int16Array;
  if (volumeTooLarge(asSlices, asInt16)) return undefined;
  return { volume: await decodeVolume(asSlices, asInt16, { source: opts.source }, signal), layout: asSlices };
}

/**
 * Decodes the frames in stack order straight into the volume: a plane on a slice is that slice,
 * written in place; a plane between two slices is their linear blend by distance (rounded when
 * int16), made from the two slices around it, the only ones kept decoded.
 */
async function decodeVolume(
  layout: SliceLayout,
  asInt16: boolean,
  opts: VolumeReadOptions,
  signal?: AbortSignal,
): Promise<Volume> {
  const source = opts.source ?? diskSlices;
  const { columns, rows, frames, stack } = layout;
  const plane = columns * rows;
  const bytes = plane * stack.count * (asInt16 ? 2 : 4);
  const buffer = opts.shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
  const data = asInt16 ? new Int16Array(buffer) : new Float32Array(buffer);
  // Frames of one file are decoded from one read of it; files are read in slice order.
  let cached: { path: string; parsed: ParsedDicom } | undefined;
  const parsedOf = async (ref: FrameRef): Promise<ParsedDicom> => {
    if (cached?.path !== ref.header.path) {
      try {
        cached = { path: ref.header.path, parsed: await source.file(ref.header.path) };
      } catch (e) {
        throw fileError(ref.header.path, e);
      }
    }
    return cached.parsed;
  };
  // Planes left to opts.copyPlanes: frames in shared memory or in a file that only need an integer shift.
  const elsewhere: PlaneCopy[] = [];
  const copyElsewhere = asInt16 && buffer instanceof SharedArrayBuffer ? opts.copyPlanes : undefined;
  // A frame's values into `out` at `at`: read in place from bytes in memory when it can, else parsed.
  const write = async (ref: FrameRef, out: Int16Array | Float32Array, at: number): Promise<void> => {
    const held = source.bytes?.(ref.header.path);
    if (copyElsewhere && out === data) {
      // Samples in shared memory, or in a file, can be copied by other threads.
      const region = held ? undefined : source.region?.(ref.header.path);
      const copy =
        held?.buffer instanceof SharedArrayBuffer
          ? planeCopyInPlace(held, ref, at)
          : region && planeCopyInRegion(region, ref, at);
      if (copy) {
        elsewhere.push(copy);
        return;
      }
    }
    const inPlace = held ? storedValuesInPlace(held, ref) : undefined;
    if (inPlace) writeStored(inPlace, ref, out, at, asInt16);
    else writeFrame(await parsedOf(ref), ref, out, at, asInt16);
  };
  // Frames whose padding maps elsewhere than the first's (another slope or intercept) are moved onto it.
  const padding = volumePadding(frames, asInt16);
  // Only for planes between slices: the two slices around the current plane, decoded on their own.
  const blendSources = new Map<number, Int16Array | Float32Array>();
  const alone = async (k: number): Promise<Int16Array | Float32Array> => {
    const have = blendSources.get(k);
    if (have) return have;
    const out = asInt16 ? new Int16Array(plane) : new Float32Array(plane);
    await write(frames[k]!, out, 0);
    const own = padding?.moved.get(k);
    if (own && padding) movePadding(out, 0, plane, own, padding.range[0]);
    for (const old of blendSources.keys()) if (old < k - 1) blendSources.delete(old);
    blendSources.set(k, out);
    return out;
  };
  const sources = planeSources(stack);
  for (const [m, { k, w }] of sources.entries()) {
    if (signal?.aborted) throw canceled();
    const at = m * plane;
    if (w === 0) {
      await write(frames[k]!, data, at);
    } else {
      const a = await alone(k);
      const b = await alone(k + 1);
      if (asInt16) {
        for (let i = 0; i < plane; i++) data[at + i] = Math.round(a[i]! + (b[i]! - a[i]!) * w);
      } else {
        for (let i = 0; i < plane; i++) data[at + i] = a[i]! + (b[i]! - a[i]!) * w;
      }
    }
    // Let other work (IPC, progress) run between slices of a long series.
    if (m % 32 === 31 || m === sources.length - 1) opts.onPlanes?.(m + 1, sources.length);
    if (m % 32 === 31) await new Promise<void>((r) => setImmediate(r));
  }
  if (copyElsewhere && elsewhere.length > 0) {
    if (signal?.aborted) throw canceled();
    if (!(await copyElsewhere(elsewhere, data as Int16Array))) throw new Int16Overflow();
  }
  // Planes on a slice, once every copy has landed (blended planes were moved before blending).
  if (padding && padding.moved.size > 0)
    for (const [m, { k, w }] of sources.entries()) {
      const own = padding.moved.get(k);
      if (w === 0 && own) movePadding(data, m * plane, plane, own, padding.range[0]);
    }
  const [rowSpacing, colSpacing] = layout.pixelSpacing;
  const origin = frames[0]!.position;
  const volume: Volume = {
    data,
    dims: [columns, rows, stack.count],
    spacing: [colSpacing, rowSpacing, stack.step],
    origin: [origin[0], origin[1], origin[2]],
    rowDir: layout.rowDir,
    colDir: layout.colDir,
    sliceDir: stack.dir,
  };
  if (!layout.pixelSpacingKnown) volume.scaleUnknown = true;
  const modality = frames[0]!.header.modality;
  if (modality) volume.modality = modality;
  const rescaleType = frames[0]!.header.rescaleType;
  if (rescaleType) volume.rescaleType = rescaleType;
  if (padding) volume.padding = padding.range;
  if (stack.resampled) volume.sliceOffsets = stack.offsets;
  return volume;
}

function writeFrame(
  parsed: ParsedDicom,
  ref: FrameRef,
  out: Int16Array | Float32Array,
  at: number,
  asInt16: boolean,
): void {
  let stored;
  try {
    stored = frameStoredValues(parsed, ref.header, ref.frameIndex);
  } catch (e) {
    throw fileError(ref.header.path, e);
  }
  writeStored(stored, ref, out, at, asInt16);
}
