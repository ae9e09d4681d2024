import { copyFile, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { meshFileName } from '../../../src-shared/job-spec.js';
import type { Processor, ProcessorJob } from '../processor.js';

/** The shared fixtures, relative to the project root as every test reads them. */
export const FIXTURES = resolve(process.cwd(), '..', 'shared', 'fixtures');

const MESH_BY_EXTENSION: Record<string, string> = {
  '.stl': 'mesh/spider-binary.stl',
  '.ply': 'mesh/bunny-ascii.ply',
  '.obj': 'mesh/spot-public-domain.obj',
  '.drc': 'mesh/bunny.drc',
};

/**
 * FOR TESTS ONLY: answers every mesh request with a real third-party mesh of the asked format, so
 * that the protocol can be tested without segmentation. Never the app's processor.
 */
export function createFixtureProcessor(
  opts: {
    stepMs?: number;
    fail?: string;
    calls?: ProcessorJob[];
    /** The bytes of each job's inputs, as the processor found them (the engine removes them after). */
    received?: Buffer[][];
  } = {},
): Processor {
  return {
    validate(spec) {
      if (!spec.inputs.some((i) => i.name === 'cbct')) return 'A cbct input is required.';
      const bad = spec.meshes.find((m) => !MESH_BY_EXTENSION[m.extension]);
      return bad ? `Unsupported mesh extension ${bad.extension}.` : null;
    },
    async process(job, onProgress, signal) {
      opts.calls?.push(job);
      if (opts.received) opts.received.push(await Promise.all(job.inputs.map((i) => readFile(i.path))));
      onProgress({ fraction: 0.1, stage: 'reading scan' });
      await delay(opts.stepMs ?? 0, undefined, { signal });
      if (opts.fail) throw new Error(opts.fail);
      const meshes = [];
      for (const [i, m] of job.meshes.entries()) {
        const path = join(job.workDir, `${i}-${meshFileName(m.structures, m.extension)}`);
        await copyFile(join(FIXTURES, MESH_BY_EXTENSION[m.extension] as string), path);
        meshes.push({ path, note: `fixture mesh standing in for ${m.structures.join('+')}` });
        onProgress({ fraction: 0.1 + (0.9 * (i + 1)) / job.meshes.length, stage: 'meshing' });
      }
      return { meshes };
    },
  };
}
