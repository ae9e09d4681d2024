import type { SeriesSummary } from './scans.js';

/**
 * A series can be sent for segmentation when its files have no error-level problem (warnings only
 * inform) and a model can honestly be made of it (its fitness). The one meaning of "usable"
 * everywhere: the series cards and the submit button, `scan2mesh inspect` and `submit`, and a drop's
 * overall verdict, so that nothing calls a series usable that the app then refuses.
 *
 * Kept apart from scans.ts, whose schemas would bring zod into the renderer's first chunk.
 */
export const isUsable = (s: SeriesSummary): boolean =>
  s.fitness.fit && !s.problems.some((p) => p.severity === 'error');

/**
 * Why no model can be made of a series (its fitness reasons; none when it is fit), less those
 * already shown beside them: a file's error is both a problem and a reason, and is said once.
 */
export const unfitReasons = (s: SeriesSummary, shown: readonly string[]): string[] =>
  s.fitness.fit ? [] : s.fitness.reasons.filter((r) => !shown.includes(r));
