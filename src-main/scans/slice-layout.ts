import type { ScanProblem } from '../../src-shared/scans.js';
import { directions, dot, median, norm, normalize, sameOrientation, sub } from './geometry.js';
import type { DicomHeader, FrameInfo, Vec3 } from './header-fields.js';

/** One 2D image of a series: a single-frame file, or one frame of a multi-frame file. */
export interface FrameRef {
  header: DicomHeader;
  frameIndex: number;
  info: FrameInfo;
  position: Vec3;
  /** Position along the slice normal (mm). */
  along: number;
}

/** A series' slices in order along the normal, with the geometry they share. */
export interface SliceLayout {
  frames: FrameRef[];
  rows: number;
  columns: number;
  orientation: [number, number, number, number, number, number];
  rowDir: Vec3;
  colDir: Vec3;
  normal: Vec3;
  /** DICOM order: [row spacing, column spacing] mm. */
  pixelSpacing: [number, number];
  /** Median distance between neighbouring slices along the normal (mm); from the header for one slice. */
  sliceSpacing: number;
  /** Mean step from the first slice to the last, as a direction and a length (handles gantry tilt). */
  sliceDir: Vec3;
  sliceStep: number;
  positionsKnown: boolean;
}

const DEFAULT_ORIENTATION: SliceLayout['orientation'] = [1, 0, 0, 0, 1, 0];

const fmt = (v: number, digits = 1): string => v.toFixed(digits);

/**
 * Orders the frames of one series along their slice normal and checks that they form a volume.
 * Returns the layout and what is wrong with it, in words for a clinician; error-level problems mean
 * the frames do not make one volume (different sizes or orientations, slices on top of each other).
 */
export function layoutSlices(headers: DicomHeader[]): { layout: SliceLayout; problems: ScanProblem[] } {
  const problems: ScanProblem[] = [];
  const raw: { header: DicomHeader; frameIndex: number; info: FrameInfo }[] = [];
  for (const h of headers) {
    for (let f = 0; f < h.numberOfFrames; f++)
      raw.push({ header: h, frameIndex: f, info: h.frames[f] ?? h.frames[0]! });
  }
  const first = raw[0];
  if (!first) throw new Error('layoutSlices needs at least one file');

  // Most common size and orientation win; the rest are reported.
  const sizeCounts = countBy(raw, (r) => `${r.header.columns}x${r.header.rows}`);
  const [commonSize] = [...sizeCounts.entries()].sort((a, b) => b[1] - a[1])[0]!;
  if (sizeCounts.size > 1) {
    const odd = raw.find((r) => `${r.header.columns}x${r.header.rows}` !== commonSize)!;
    problems.push({
      severity: 'error',
      code: 'mixed-sizes',
      message: `The images in this series do not all have the same size (${[...sizeCounts.keys()].join(', ')} pixels), so they do not form one volume.`,
      file: odd.header.path,
    });
  }
  const orientation = (first.info.orientation ?? DEFAULT_ORIENTATION) as SliceLayout['orientation'];
  if (!first.info.orientation) {
    problems.push({
      severity: 'warning',
      code: 'no-orientation',
      message: 'The images do not say how they are oriented in the patient; they are taken as axial.',
    });
  }
  const tilted = raw.find((r) => r.info.orientation && !sameOrientation(r.info.orientation, orientation));
  if (tilted) {
    problems.push({
      severity: 'error',
      code: 'mixed-orientations',
      message:
        'The images in this series are not all oriented the same way (mixed planes or angles), so they do not form one volume.',
      file: tilted.header.path,
    });
  }

  const { row, col, normal } = directions(orientation);
  const positionsKnown = raw.every((r) => r.info.position !== undefined);
  const headerSpacing = first.header.spacingBetweenSlices ?? first.header.sliceThickness;
  let frames: FrameRef[];
  if (positionsKnown) {
    frames = raw.map((r) => ({ ...r, position: r.info.position!, along: dot(r.info.position!, normal) }));
    frames.sort(
      (a, b) =>
        a.along - b.along ||
        (a.header.instanceNumber ?? 0) - (b.header.instanceNumber ?? 0) ||
        a.frameIndex - b.frameIndex,
    );
  } else {
    // No positions: keep the order of instance numbers and frames, spaced as the header says.
    if (raw.length > 1) {
      problems.push({
        severity: 'warning',
        code: 'no-positions',
        message: `The slices do not record where they are in the patient; they are put in order by their numbers and spaced ${headerSpacing ?? 1} mm apart.`,
      });
    }
    const origin = first.info.position ?? ([0, 0, 0] as Vec3);
    const step = headerSpacing && headerSpacing > 0 ? headerSpacing : 1;
    const ordered = [...raw].sort(
      (a, b) =>
        (a.header.instanceNumber ?? 0) - (b.header.instanceNumber ?? 0) || a.frameIndex - b.frameIndex,
    );
    frames = ordered.map((r, k) => {
      const position: Vec3 = [
        origin[0] + k * step * normal[0],
        origin[1] + k * step * normal[1],
        origin[2] + k * step * normal[2],
      ];
      return { ...r, position, along: dot(position, normal) };
    });
  }

  const gaps: number[] = [];
  for (let k = 1; k < frames.length; k++) gaps.push(frames[k]!.along - frames[k - 1]!.along);
  const positiveGaps = gaps.filter((g) => g > 1e-3);
  const spacing =
    positiveGaps.length > 0 ? median(positiveGaps) : headerSpacing && headerSpacing > 0 ? headerSpacing : 1;

  const duplicates = gaps.filter((g) => g <= 1e-3).length;
  if (duplicates > 0) {
    const k = gaps.findIndex((g) => g <= 1e-3);
    problems.push({
      severity: 'error',
      code: 'duplicate-positions',
      message: `${duplicates} slice${duplicates > 1 ? 's lie' : ' lies'} at the same place as another one (at ${fmt(frames[k]!.along)} mm). The series may hold two scans or repeated images.`,
      file: frames[k + 1]!.header.path,
    });
  }
  if (positionsKnown && frames.length > 2 && duplicates === 0) checkSpacing(frames, gaps, spacing, problems);

  const firstPos = frames[0]!.position;
  const lastPos = frames[frames.length - 1]!.position;
  const span = sub(lastPos, firstPos);
  const sliceDir = frames.length > 1 && norm(span) > 0 ? normalize(span) : normal;
  const sliceStep = frames.length > 1 && norm(span) > 0 ? norm(span) / (frames.length - 1) : spacing;

  const pixelSpacing = first.info.pixelSpacing ?? [1, 1];
  if (!first.info.pixelSpacing) {
    problems.push({
      severity: 'warning',
      code: 'no-pixel-spacing',
      message:
        'The images do not state their pixel size; 1 mm is assumed, so sizes in the mesh may be wrong.',
    });
  }
  const [rowsStr, colsStr] = commonSize.split('x').reverse();
  return {
    layout: {
      frames,
      rows: Number(rowsStr),
      columns: Number(colsStr),
      orientation,
      rowDir: row,
      colDir: col,
      normal,
      pixelSpacing: [pixelSpacing[0], pixelSpacing[1]],
      sliceSpacing: spacing,
      sliceDir,
      sliceStep,
      positionsKnown,
    },
    problems,
  };
}

/** Reports gaps (missing slices) and uneven steps, saying where they are. */
function checkSpacing(frames: FrameRef[], gaps: number[], spacing: number, problems: ScanProblem[]): void {
  const tolerance = Math.max(0.01, spacing * 0.05);
  const missing: string[] = [];
  const uneven: string[] = [];
  let missingCount = 0;
  gaps.forEach((g, k) => {
    const where = `between slice ${k + 1} and ${k + 2} (${fmt(frames[k]!.along)} to ${fmt(frames[k + 1]!.along)} mm)`;
    if (g > spacing * 1.5) {
      const n = Math.max(1, Math.round(g / spacing) - 1);
      missingCount += n;
      missing.push(`${where}, a ${fmt(g)} mm gap: about ${n} slice${n > 1 ? 's' : ''}`);
    } else if (Math.abs(g - spacing) > tolerance) {
      uneven.push(`${where}: ${fmt(g, 2)} mm`);
    }
  });
  if (missing.length > 0) {
    problems.push({
      severity: 'warning',
      code: 'missing-slices',
      message: `Slices seem to be missing (${missingCount} in all; slices are normally ${fmt(spacing, 2)} mm apart): ${list(missing)}. The model will be stretched across the gap${missing.length > 1 ? 's' : ''}.`,
    });
  }
  if (uneven.length > 0) {
    problems.push({
      severity: 'warning',
      code: 'uneven-spacing',
      message: `The slices are not evenly spaced (normally ${fmt(spacing, 2)} mm apart): ${list(uneven)}. Distances in the model may be slightly off there.`,
    });
  }
}

function list(items: string[], max = 3): string {
  const shown = items.slice(0, max).join('; ');
  return items.length > max ? `${shown}; and ${items.length - max} more` : shown;
}

function countBy<T>(items: T[], key: (t: T) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const it of items) m.set(key(it), (m.get(key(it)) ?? 0) + 1);
  return m;
}
