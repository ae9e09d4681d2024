import { basename } from 'node:path';
import type { Handlers } from '../dispatch.js';
import type { Core } from '../core.js';
import { AppError } from '../../../src-shared/errors.js';
import { grantUrl } from '../file-grants.js';
import { connectionCapabilities, refuseUnmakeable } from '../structure-check.js';

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
>;

const FORMATS = { '.stl': 'stl', '.ply': 'ply', '.obj': 'obj', '.drc': 'drc' } as const;

export function jobHandlers(core: Core): JobHandlers {
  const done = async (fn: () => unknown): Promise<Record<string, never>> => {
    await fn();
    return {};
  };
  return {
    'jobs.submit': async (req) => {
      // The panel disables what the connection refuses; this is the last line of defence for any
      // other caller, before a package is made.
      const profile = core.profiles.get(req.profileId ?? core.profiles.activeId());
      if (profile)
        refuseUnmakeable(
          req.meshes,
          connectionCapabilities(profile.kind, core.engineProcessor),
          profile.name,
        );
      // Likewise a series no model can honestly be made of (a 2-slice slab, a scout) is never packed.
      for (const id of req.seriesIds) {
        const fitness = core.scans.series(id)?.fitness;
        if (fitness && !fitness.fit)
          throw new AppError('bad-input', `No model can be made of this scan: ${fitness.reasons.join(' ')}`, {
            action: 'Untick it, and send a CT or CBCT scan of the whole jaw.',
          });
      }
      return { jobs: await (await core.jobs()).submit(req) };
    },
    'jobs.list': async () => {
      const jobs = await core.jobs();
      return { jobs: jobs.list(), paused: jobs.isPaused() };
    },
    'jobs.cancel': async ({ id }) => done(async () => (await core.jobs()).cancel(id)),
    'jobs.retry': async ({ id, resubmit }) =>
      done(async () => (await core.jobs()).retry(id, { resubmit: resubmit === true })),
    'jobs.remove': async ({ id }) => done(async () => (await core.jobs()).remove(id)),
    'jobs.prioritize': async ({ id }) => done(async () => (await core.jobs()).prioritize(id)),
    'jobs.pause': async ({ batchId }) =>
      done(async () => {
        const jobs = await core.jobs();
        if (batchId) jobs.pauseBatch(batchId);
        else jobs.pause();
      }),
    'jobs.resume': async ({ batchId }) =>
      done(async () => {
        const jobs = await core.jobs();
        if (batchId) jobs.resumeBatch(batchId);
        else jobs.resume();
      }),
    'jobs.reveal': async ({ id, index }) => done(async () => (await core.jobs()).reveal(id, index)),
    'jobs.openOutput': async ({ id, index }) => {
      const job = (await core.jobs()).get(id);
      const output = job?.outputs[index];
      if (!job || !output)
        throw new AppError('not-found', 'That result is not available (the job may have been removed).');
      const format = FORMATS[output.extension as keyof typeof FORMATS];
      if (!format)
        throw new AppError('bad-input', `The viewer cannot show ${output.extension} files.`, {
          action: 'Open the file with another program (Reveal in folder).',
        });
      return {
        url: grantUrl(core.platform.transport, core.files.grant(output.path)),
        name: basename(output.path),
        format,
        structures: output.structures,
        bytes: output.bytes,
      };
    },
  };
}
