import { basename } from 'node:path';
import type { Handlers } from '../dispatch.js';
import type { FileHandout, JobQueue, OpenJobQueue, StructureJudge } from '../services.js';
import { AppError } from '../../../src-shared/errors.js';
import { isUsable } from '../../../src-shared/series-usable.js';
import { isTerminal, type SavedOutputState } from '../../../src-shared/jobs.js';
import { notAsSavedError, savedOutputStateAsync } from '../../jobs/saved-output-state.js';
import type { ScanService } from '../../scans/scan-service.js';
import type { ProfileStore } from '../../settings/profile-store.js';
import { connectionCapabilities, refuseUnmakeable, scanRefusalFor } from '../structure-check.js';

type JobHandlers = Pick<
  Handlers,
  | 'jobs.submit'
  | 'jobs.list'
  | 'jobs.cancel'
  | 'jobs.retry'
  | 'jobs.remove'
  | 'jobs.prioritize'
  | 'jobs.pause'
  | 'jobs.resume'
  | 'jobs.reveal'
  | 'jobs.openOutput'
  | 'jobs.outputsOnDisk'
>;

const FORMATS = { '.stl': 'stl', '.ply': 'ply', '.obj': 'obj', '.drc': 'drc' } as const;

interface JobHandlerDeps {
  jobs: OpenJobQueue;
  /** The connection a submission goes to, to refuse what it cannot make before anything is packed. */
  profiles: Pick<ProfileStore, 'get' | 'activeId'>;
  engine: StructureJudge;
  scans: Pick<ScanService, 'series'>;
  files: FileHandout;
}

export function jobHandlers({ jobs: open, profiles, engine, scans, files }: JobHandlerDeps): JobHandlers {
  const done = async (fn: () => unknown): Promise<Record<string, never>> => {
    await fn();
    return {};
  };
  /**
   * The queue, once the job is known by its full local id. The command line resolves what people type
   * (a prefix, the service's id) itself; a window or a page names jobs only by the ids jobs.list gave.
   */
  const withJob = async (id: string): Promise<JobQueue> => {
    const queue = await open();
    if (!queue.get(id)) throw new AppError('not-found', 'That job no longer exists.');
    return queue;
  };
  return {
    'jobs.submit': async (req) => {
      // The panel disables what the connection refuses; this is the last line of defence for any
      // other caller, before a package is made.
      const profile = profiles.get(req.profileId ?? profiles.activeId());
      const caps = profile ? connectionCapabilities(profile.kind, engine) : undefined;
      if (profile && caps) refuseUnmakeable(req.meshes, caps, profile.name);
      // Likewise a series that is not usable (a damaged file, or a 2-slice slab or a scout that no
      // model can honestly be made of) is never packed.
      for (const id of req.seriesIds) {
        const series = scans.series(id);
        if (series && !isUsable(series))
          // The reasons include the files' errors (segmentation-fitness.ts), in words for a clinician.
          throw new AppError(
            'bad-input',
            `No model can be made of this scan: ${series.fitness.reasons.join(' ')}`,
            {
              action: 'Untick it; the reason says what would make a model possible.',
            },
          );
        const coarse = series && caps ? scanRefusalFor(req.meshes, caps, series) : null;
        if (coarse) throw new AppError('bad-input', `Nothing was sent. ${coarse}`);
      }
      return { jobs: await (await open()).submit(req) };
    },
    'jobs.list': async () => {
      const queue = await open();
      return { jobs: queue.list(), paused: queue.isPaused() };
    },
    'jobs.cancel': async ({ id }) => done(async () => (await withJob(id)).cancel(id)),
    'jobs.retry': async ({ id, resubmit }) =>
      done(async () => (await withJob(id)).retry(id, { resubmit: resubmit === true })),
    'jobs.remove': async ({ id }) => done(async () => (await withJob(id)).remove(id)),
    'jobs.prioritize': async ({ id }) => done(async () => (await withJob(id)).prioritize(id)),
    'jobs.pause': async ({ batchId }) =>
      done(async () => {
        const queue = await open();
        if (batchId) queue.pauseBatch(batchId);
        else queue.pause();
      }),
    'jobs.resume': async ({ batchId }) =>
      done(async () => {
        const queue = await open();
        if (batchId) queue.resumeBatch(batchId);
        else queue.resume();
      }),
    'jobs.reveal': async ({ id, index }) => done(async () => (await withJob(id)).reveal(id, index)),
    'jobs.openOutput': async ({ id, index }) => {
      const job = (await open()).get(id);
      const output = job?.outputs[index];
      if (!job || !output)
        throw new AppError('not-found', 'That result is not available (the job may have been removed).');
      const notAsSaved = notAsSavedError(output);
      if (notAsSaved) throw notAsSaved;
      const format = FORMATS[output.extension as keyof typeof FORMATS];
      if (!format)
        throw new AppError('bad-input', `The viewer cannot show ${output.extension} files.`, {
          action: 'Open the file with another program (Reveal in folder).',
        });
      return {
        url: files.urlFor(output.path),
        name: basename(output.path),
        format,
        structures: output.structures,
        bytes: output.bytes,
      };
    },
    'jobs.outputsOnDisk': async ({ ids }) => {
      const queue = await open();
      const ended = ids.flatMap((id) => {
        const job = queue.get(id);
        return job && isTerminal(job.state) && job.outputs.length > 0 ? [job] : [];
      });
      // One stat per mesh, on the thread pool: a list of hundreds of jobs never holds this thread.
      const looked = await Promise.all(
        ended.map(
          async (job) => [job.id, await Promise.all(job.outputs.map(savedOutputStateAsync))] as const,
        ),
      );
      return { states: Object.fromEntries(looked) as Record<string, SavedOutputState[]> };
    },
  };
}
