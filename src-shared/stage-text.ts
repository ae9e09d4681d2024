/**
 * The stage text of a running job (what the engine is doing, in words), as the engine's polls carry
 * it (X-Stage) and the app and the command line show it.
 */

/** The longest stage text a client shows: service/poll-state.ts drops a longer X-Stage as odd. */
export const STAGE_MAX_CHARS = 120;

/**
 * A stage text within STAGE_MAX_CHARS. A longer one (a mesh of many structures names them all) keeps
 * its start, which says what is being done, and its end, where the counts and seconds move, with an
 * ellipsis between: cut at the end, the moving part would be lost; dropped, the user would see none.
 */
export function shortStage(text: string): string {
  if (text.length <= STAGE_MAX_CHARS) return text;
  const tail = Math.floor((STAGE_MAX_CHARS - 1) / 2);
  return `${text.slice(0, STAGE_MAX_CHARS - 1 - tail)}…${text.slice(text.length - tail)}`;
}
