import { statSync, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import { NOT_AS_SAVED_ACTION, type JobOutput, type SavedOutputState } from '../../src-shared/jobs.js';

export { NOT_AS_SAVED, type SavedOutputState } from '../../src-shared/jobs.js';

type Saved = Pick<JobOutput, 'path' | 'bytes'>;

/** What a stat of the path (undefined: none could be made) says of the mesh saved there. */
function stateOf(s: Stats | undefined, output: Saved): SavedOutputState {
  if (!s?.isFile()) return 'missing';
  return s.size === output.bytes ? 'saved' : 'changed';
}

/**
 * Whether a mesh a job saved is still what it saved (src-shared/jobs.ts SavedOutputState). A job
 * stays "done" after the user moves, deletes or overwrites its meshes; what is at the path then is
 * not the job's result, and is never shown or listed as it.
 */
export function savedOutputState(output: Saved): SavedOutputState {
  let s: Stats | undefined;
  try {
    s = statSync(output.path);
  } catch {
    s = undefined;
  }
  return stateOf(s, output);
}

/** The same, off this thread: the Jobs screen asks for every ended job's meshes at once. */
export async function savedOutputStateAsync(output: Saved): Promise<SavedOutputState> {
  return stateOf(await stat(output.path).catch(() => undefined), output);
}

/** Why a saved mesh cannot be opened as the job's result, in words; undefined when it can. */
export function notAsSavedError(output: Saved): AppError | undefined {
  const state = savedOutputState(output);
  const name = basename(output.path);
  if (state === 'missing')
    return new AppError('not-found', `${name} is no longer where the job saved it (${output.path}).`, {
      action: NOT_AS_SAVED_ACTION.missing,
    });
  if (state === 'changed')
    return new AppError(
      'not-found',
      `${name} has changed since the job saved it (${output.bytes} bytes then, another size now), so it is not the job's result.`,
      { action: NOT_AS_SAVED_ACTION.changed },
    );
  return undefined;
}
