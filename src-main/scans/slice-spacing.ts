import type { ScanProblem } from '../../src-shared/scans.js';
import { gapWords, maxBridgeableGap, maxOffLineMm, type StackGrid } from './stack-grid.js';

// How the slices of one stack are spaced, in words for layoutSlices: gaps, uneven steps, a crooked line.

const fmt = (v: number, digits = 1): string => v.toFixed(digits);

/**
 * Reports missing slices, gaps too wide to bridge, uneven steps and a crooked stack, saying where;
 * `frames` are the slices in order, each with its place along the normal (mm).
 */
export function reportSpacing(
  frames: readonly { along: number }[],
  stack: StackGrid,
  pixelSpacing: [number, number] | undefined,
  problems: ScanProblem[],
): void {
  const { spacing } = stack;
  const normally = `slices are normally ${fmt(spacing, 2)} mm apart`;
  if (stack.unbridgeable.length > 0) {
    problems.push({
      severity: 'warning',
      code: 'gap-too-wide',
      message: `Part of the scan is missing ${list(stack.unbridgeable.map(gapWords))}; ${normally}. A gap wider than ${fmt(maxBridgeableGap(spacing))} mm (three times the usual spacing, and at most 4 mm more than it) that the slices' own thickness does not cover cannot be filled in honestly, so this scan cannot be made into a model.`,
    });
  }
  const widths = stack.bridged.map((g) => g.sizeMm);
  const widest = Math.max(...widths);
  const narrowest = Math.min(...widths);
  if (stack.bridged.length >= SPACING_CHANGE_MIN_GAPS && widest - narrowest <= 0.1 * narrowest) {
    // Many gaps of one width: the scan changes its spacing (a protocol can), it does not lose slices.
    problems.push({
      severity: 'warning',
      code: 'spacing-changes',
      message: `The slices are ${fmt(spacing, 2)} mm apart in most of the scan and ${fmt(narrowest, 2)} mm apart in ${stack.bridged.length} places (${list(stack.bridged.map(gapWords))}): its spacing changes, and no slice seems to be missing. The volume is rebuilt on an even ${fmt(stack.step, 2)} mm grid from each slice's true position.`,
    });
  } else if (stack.bridged.length > 0) {
    const missing = stack.bridged.reduce((n, g) => n + missingCount(g.sizeMm, spacing), 0);
    problems.push({
      severity: 'warning',
      code: 'missing-slices',
      message: `Slices seem to be missing (${missing} in all; ${normally}): ${list(stack.bridged.map((g) => `${gapWords(g)}: about ${missingIn(g.sizeMm, spacing)}`))}. The scan is filled in there from the slices on either side.`,
    });
  }
  const tolerance = Math.max(0.01, spacing * 0.05);
  const uneven: string[] = [];
  for (let k = 1; k < frames.length; k++) {
    const g = stack.offsets[k]! - stack.offsets[k - 1]!;
    if (g <= spacing * 1.5 && Math.abs(g - spacing) > tolerance) {
      uneven.push(
        `between slice ${k} and ${k + 1} (${fmt(frames[k - 1]!.along)} to ${fmt(frames[k]!.along)} mm): ${fmt(g, 2)} mm`,
      );
    }
  }
  if (uneven.length > 0) {
    problems.push({
      severity: 'warning',
      code: 'uneven-spacing',
      message: `The slices are not evenly spaced (${normally}): ${list(uneven)}. ${stack.resampled ? `The volume is rebuilt on an even ${fmt(stack.step, 2)} mm grid from each slice's true position.` : 'The differences are too small to change the model.'}`,
    });
  }
  if (stack.offLine > maxOffLineMm(pixelSpacing)) {
    problems.push({
      severity: 'warning',
      code: 'stack-not-straight',
      message: `The slices do not lie on one straight line (one is ${fmt(stack.offLine, 2)} mm off it), so they do not form one regular scan.`,
    });
  }
}

/** From this many gaps of one width, a stack is taken to change its spacing rather than to lose slices. */
const SPACING_CHANGE_MIN_GAPS = 5;

const missingCount = (gap: number, spacing: number): number => Math.max(1, Math.round(gap / spacing) - 1);
const missingIn = (gap: number, spacing: number): string => {
  const n = missingCount(gap, spacing);
  return `${n} slice${n > 1 ? 's' : ''}`;
};

function list(items: string[], max = 3): string {
  const shown = items.slice(0, max).join('; ');
  return items.length > max ? `${shown}; and ${items.length - max} more` : shown;
}
