import { formatBytes } from '../../src-shared/format-bytes.js';

/**
 * What the files of one drop that dicom-parser reads whole (deflated or big-endian data sets: the
 * tag-only reader does not walk them) may cost together. Each file has its own bounds (64 MB inflated,
 * a million elements: a few seconds), and a drop multiplied them: 20 deflated files of 12 KB, each a
 * million empty items, took 40 s and 1.2 GB to look at, and 200 files of 64 KB each inflating to 63 MB
 * took 20 s (a review). The budget is shared by the threads reading one drop (header-scan.ts gives it
 * to each), and spent atomically; the file that passes it, and every later one, is left out in words.
 */

/**
 * Bytes inflated from deflated data sets, per drop (in KiB): 4 GiB, some 50 series of a 140-slice CT.
 * A review's study export of 30 such series passed the first 2 GiB.
 */
export const DROP_INFLATED_KIB = 4 * 1024 * 1024;
/** Data elements handed to dicom-parser, per drop: 40 enhanced CTs of 1,000 frames. */
export const DROP_PARSED_ELEMENTS = 4_000_000;

/** The problem code of a file left unread for its drop's budget (intake then offers no series). */
export const DROP_OVER_BUDGET = 'drop-over-budget';

const INFLATED = 0;
const ELEMENTS = 1;

/** A new budget for one drop, in memory its reading threads share. */
export function newDropBudget(
  size: { inflatedKib: number; elements: number } = {
    inflatedKib: DROP_INFLATED_KIB,
    elements: DROP_PARSED_ELEMENTS,
  },
): Int32Array {
  // What is left of each, then what there was (for the words).
  const b = new Int32Array(new SharedArrayBuffer(16));
  b[INFLATED] = b[INFLATED + 2] = size.inflatedKib;
  b[ELEMENTS] = b[ELEMENTS + 2] = size.elements;
  return b;
}

/** The budget of the drop this thread reads a file of now; none outside intake (reading a scan whole). */
let current: Int32Array | null = null;

/** Runs `read` with `budget` as the drop's budget for its files' costs. */
export function withDropBudget<T>(budget: Int32Array | null, read: () => T): T {
  const before = current;
  current = budget;
  try {
    return read();
  } finally {
    current = before;
  }
}

/** Thrown when a file would pass its drop's budget. */
export class DropBudgetSpent extends Error {}

/** Whether anything is left to inflate; throws DropBudgetSpent when not. */
export function checkInflateLeft(): void {
  if (current && Atomics.load(current, INFLATED) <= 0) throw new DropBudgetSpent(inflateWords(current));
}

/** Spends `bytes` inflated; throws DropBudgetSpent past the budget. */
export function spendInflated(bytes: number): void {
  const kib = Math.ceil(bytes / 1024);
  if (current && Atomics.sub(current, INFLATED, kib) - kib < 0)
    throw new DropBudgetSpent(inflateWords(current));
}

/** Spends `elements` parsed; throws DropBudgetSpent past the budget. */
export function spendElements(elements: number): void {
  if (current && Atomics.sub(current, ELEMENTS, elements) - elements < 0)
    throw new DropBudgetSpent(
      `the files of this drop that must be read whole (deflated or big-endian ones) hold more than ${current[ELEMENTS + 2]!.toLocaleString('en-US')} data elements together, more than scan2mesh reads in one drop (a study of many series, or damaged or crafted files)`,
    );
}

const inflateWords = (b: Int32Array): string =>
  `the deflated files of this drop unpack to more than ${formatBytes(b[INFLATED + 2]! * 1024)} together, more than scan2mesh reads in one drop (a study of many series, or damaged or crafted files)`;
