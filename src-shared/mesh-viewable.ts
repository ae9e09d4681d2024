/**
 * What the built-in viewer will not show, or warns about, said the same way by the viewer
 * (src-renderer/viewer/mesh-budget.ts, viewer-actions.ts) and by the download check
 * (src-main/jobs/mesh-check.ts): a job is done only when the viewer will show what was saved, so
 * what the viewer refuses or warns of must be known, in its words, when the mesh is saved.
 */
import { fmt } from './mesh-text.js';

/** ArrayBuffers this large fail to allocate in a renderer process well before memory runs out. */
export const MAX_FILE_BYTES = 1.5 * 2 ** 30;

/** Beyond this the scene is unusable on any clinical workstation, whatever its memory. */
export const HARD_MAX_TRIANGLES = 30_000_000;

/** Why a file of `bytes` is more than the viewer reads ("2,040 MB, more than 1,536 MB can be read"), or undefined. */
export function fileSizeOverLimit(bytes: number, maxBytes = MAX_FILE_BYTES): string | undefined {
  if (bytes <= maxBytes) return undefined;
  return `${fmt(Math.round(bytes / 2 ** 20))} MB, more than ${fmt(maxBytes / 2 ** 20)} MB can be read`;
}

/**
 * What a saved mesh's note says when the viewer will refuse it on any computer (its file size, its
 * triangles), or undefined. The mesh is still saved: it is whole, and another program may open it.
 */
export function tooLargeForViewerNote(bytes: number, triangles: number | undefined): string | undefined {
  const over =
    fileSizeOverLimit(bytes) ??
    (triangles !== undefined && triangles > HARD_MAX_TRIANGLES
      ? `${fmt(triangles)} triangles, more than the ${fmt(HARD_MAX_TRIANGLES)} it shows`
      : undefined);
  if (over === undefined) return undefined;
  return `Saved, but too large for the built-in viewer (${over}): open it in another program, or ask for a decimated mesh (the service can reduce triangles).`;
}

/**
 * The warning for a mesh some of whose triangles have no area (all of them: it is refused), or
 * undefined: "1,367 of 1,368 triangles are degenerate (zero area) and draw nothing". `count`: how
 * numbers are written (the viewer's window groups digits by hand: a first toLocaleString is slow).
 */
export function degenerateWarning(
  degenerate: number,
  triangles: number,
  count: (n: number) => string = fmt,
): string | undefined {
  if (degenerate === 0) return undefined;
  return `${count(degenerate)} of ${count(triangles)} triangles are degenerate (zero area) and draw nothing`;
}
