import { MAX_SIMPLIFY_ROUNDS, type SimplifyStep } from './simplify.js';

/**
 * Progress within the steps of one mesh, in plain words. A step that takes seconds on a big scan
 * says where it is as its pieces end (passes, iterations, slabs), so that a user can tell a long
 * step from a hung app; pieces are counted as they come back, never per triangle.
 */

/** Where a step is: `share` from 0 (its start) to 1 (its end), and what it is doing. */
export type StepReport = (share: number, stage: string) => void;

/** A step that runs from `from` to `to` of the mesh's share, told through the mesh's `at`. */
export function stepOf(
  at: (fraction: number) => (stage: string) => void,
  from: number,
  to: number,
): StepReport {
  return (share, stage) => at(from + (to - from) * Math.min(1, Math.max(0, share)))(stage);
}

/** How often a slab still running is told, with its seconds so far. */
export const HEARTBEAT_MS = 1000;
/** The fraction creeps towards the next slab's end: 63 % of the way after this long, never all of it. */
const CREEP_MS = 20_000;
/** Share of a round given to its slabs; the rest to checking the result. */
const PARTS_SHARE = 0.9;

/** Share of the simplification at the start of round r: the first takes most; reruns are rare. */
function roundStart(r: number): number {
  return r === 0 ? 0 : 1 - 0.2 * 2 ** -(r - 1);
}

export interface SimplifyProgress {
  onStep: (step: SimplifyStep) => void;
  /** Ends the heartbeat: call when the simplification ends, however it ends. */
  stop: () => void;
}

/**
 * The simplification's progress. Its slabs run side by side, one meshoptimizer call each (tens of
 * seconds for a big CBCT's skull), and report nothing until they end: the slabs' ends are told as
 * they come back, and in between a heartbeat every HEARTBEAT_MS says how long the slabs have run
 * and moves the fraction part of the way to the next slab's end (never reaching it), so the bar
 * and the words keep moving. The heartbeat runs on this thread's timers while it waits on the
 * mesh workers: nothing is added to their work.
 */
export function simplifyProgress(
  report: StepReport,
  label: string,
  now: () => number = Date.now,
): SimplifyProgress {
  let share = 0;
  let next = 0;
  let text = '';
  let since = now();
  let roundSince = since;
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = (): void => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };
  const beat = (): void => {
    const t = now();
    if (t - since < HEARTBEAT_MS) return;
    const crept = share + (next - share) * (1 - Math.exp(-(t - since) / CREEP_MS));
    report(crept, `${text} (${Math.round((t - roundSince) / 1000)} s so far)`);
  };
  const onStep = (step: SimplifyStep): void => {
    const r0 = roundStart(step.round);
    const span = roundStart(step.round + 1) - r0;
    const what =
      step.round === 0
        ? `simplifying the surface of ${label}`
        : `simplifying the surface of ${label} again to keep it closed (round ${step.round + 1} of ${MAX_SIMPLIFY_ROUNDS} at most)`;
    since = now();
    if (step.kind === 'check') {
      stop();
      // Past the last slab's end, so that every step of the simplification moves the bar.
      share = r0 + span * (PARTS_SHARE + (1 - PARTS_SHARE) / 2);
      next = r0 + span;
      text = `checking that the simplified surface of ${label} is closed`;
    } else {
      if (step.done === 0) roundSince = since;
      share = r0 + (span * PARTS_SHARE * step.done) / step.parts;
      next = r0 + (span * PARTS_SHARE * Math.min(step.parts, step.done + 1)) / step.parts;
      text = step.parts === 1 ? what : `${what}: ${step.done} of ${step.parts} parts done`;
      if (step.done >= step.parts) stop();
      else if (timer === undefined) {
        timer = setInterval(beat, HEARTBEAT_MS);
        // Never what keeps a thread alive.
        timer.unref();
      }
    }
    report(share, text);
  };
  return { onStep, stop };
}
