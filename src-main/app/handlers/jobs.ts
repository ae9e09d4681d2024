import { basename } from 'node:path';
import type { Handlers } from '../dispatch.js';
import type { Core } from '../core.js';
import { AppError } from '../../../src-shared/errors.js';
import { grantUrl } from '../file-grants.js';

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
    'jobs.submit': async (req) => ({ jobs: await (await core.jobs()).submit(req) }),
    'jobs.list': async () => {
      const jobs = await core.jobs();
      return { jobs: jobs.list(), paused: jobs.isPaused() };
    },
    'jobs.cancel': async ({ id }) => done(async () => (await core.jobs()).cancel(id)),
    'jobs.retry': async ({ id }) => done(async () => (await core.jobs()).retry(id)),
    'jobs.remove': async ({ id }) => done(async () => (await core.jobs()).remove(id)),
    'jobs.prioritize': async ({ id }) => done(async () => (await core.jobs()).prioritize(id)),
    'jobs.pause': async () => done(async () => (await core.jobs()).pause()),
    'jobs.resume': async () => done(async () => (await core.jobs()).resume()),
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
