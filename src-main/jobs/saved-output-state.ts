import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { AppError } from '../../src-shared/errors.js';
import type { JobOutput } from '../../src-shared/jobs.js';

/**
 * Whether a mesh a job saved is still what it saved: at its path, as a file of the size it had. A job
 * stays "done" after the user moves, deletes or overwrites its meshes; what is at the path then is
 * not the job's result, and is never shown or listed as it.
 */
export type SavedOutputState = 'saved' | 'missing' | 'changed';

export function savedOutputState(output: Pick<JobOutput, 'path' | 'bytes'>): SavedOutputState {
  let size: number;
  try {
    const s = statSync(output.path);
    if (!s.isFile()) return 'missing';
    size = s.size;
  } catch {
    return 'missing';
  }
  return size === output.bytes ? 'saved' : 'changed';
}

/** How `status` marks a mesh that is no longer what the job saved. */
export const NOT_AS_SAVED: Record<Exclude<SavedOutputState, 'saved'>, string> = {
  missing: 'no longer there',
  changed: 'changed since saved',
};

/** Why a saved mesh cannot be opened as the job's result, in words; undefined when it can. */
export function notAsSavedError(output: Pick<JobOutput, 'path' | 'bytes'>): AppError | undefined {
  const state = savedOutputState(output);
  const name = basename(output.path);
  if (state === 'missing')
    return new AppError('not-found', `${name} is no longer where the job saved it (${output.path}).`, {
      action:
        'It was moved, renamed or deleted. Open it where it is now by dropping it on the viewer, or retry the job to make it again.',
    });
  if (state === 'changed')
    return new AppError(
      'not-found',
      `${name} has changed since the job saved it (${output.bytes} bytes then, another size now), so it is not the job's result.`,
      {
        action:
          'Another program or a later save wrote over it. Retry the job to make the mesh again, or drop the file on the viewer to look at it as a file of your own.',
      },
    );
  return undefined;
}
