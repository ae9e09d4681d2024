import { AppError } from '../../../src-shared/errors.js';
import type { JobView } from '../../../src-shared/jobs.js';
import type { JobManager } from '../../jobs/job-manager.js';

/** The job a command names by its id (or its first characters); refused in words when there is none. */
export function jobNamed(manager: Pick<JobManager, 'find'>, id: string): JobView {
  const job = manager.find(id);
  if (!job)
    throw new AppError('bad-input', `There is no job "${id}" (or the id fits several).`, {
      action: '`scan2mesh status` lists the jobs and their ids.',
    });
  return job;
}
