/**
 * A hint when a mesh's size suggests it is not in millimetres. Dental and head anatomy spans
 * about 5 mm (a tooth fragment) to 1000 mm (head and neck); a file written in metres shows a
 * 200 mm skull as 0.2 "mm", one in micrometres as 200,000.
 */
import { formatMm } from './format-units.js';

/** Below this diagonal (mm) no dental or head structure fits. */
const SMALLEST_PLAUSIBLE_MM = 5;
/** Above this diagonal (mm) the mesh is larger than a head and neck. */
const LARGEST_PLAUSIBLE_MM = 1000;

interface UnitHint {
  /** What the size is and what it probably means, in words. */
  message: string;
  /** The scale that would turn the file's units into mm, when one reading is clearly likely. */
  factor: number | null;
  /** The factor's meaning, for a button: "metres", "micrometres". */
  unit: string | null;
}

export function diagonalMm(bounds: readonly number[]): number {
  return Math.hypot(bounds[3]! - bounds[0]!, bounds[4]! - bounds[1]!, bounds[5]! - bounds[2]!);
}

const plausible = (mm: number): boolean => mm >= SMALLEST_PLAUSIBLE_MM && mm <= LARGEST_PLAUSIBLE_MM;

/** Null when the size fits anatomy in mm. */
export function unitHint(name: string, bounds: readonly number[]): UnitHint | null {
  const d = diagonalMm(bounds);
  if (!Number.isFinite(d) || plausible(d)) return null;
  const across = `${name} is ${formatMm(d)} mm across`;
  if (d < SMALLEST_PLAUSIBLE_MM) {
    if (plausible(d * 1000)) {
      return {
        message: `${across}, smaller than any tooth: the file is probably in metres (${formatMm(d * 1000)} mm if so).`,
        factor: 1000,
        unit: 'metres',
      };
    }
    if (d > 0 && plausible(d * 10)) {
      return {
        message: `${across}, smaller than any tooth: the file may be in centimetres (${formatMm(d * 10)} mm) or inches (${formatMm(d * 25.4)} mm).`,
        factor: null,
        unit: null,
      };
    }
    return {
      message: `${across}, far smaller than any anatomy: check the units the program that wrote it used.`,
      factor: null,
      unit: null,
    };
  }
  if (plausible(d / 1000)) {
    return {
      message: `${across}, larger than a head: the file is probably in micrometres (${formatMm(d / 1000)} mm if so).`,
      factor: 0.001,
      unit: 'micrometres',
    };
  }
  return {
    message: `${across}, larger than a head: check the units the program that wrote it used.`,
    factor: null,
    unit: null,
  };
}
