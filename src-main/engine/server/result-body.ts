import { meshFileName, OUTPUT_AVAILABLE, OUTPUT_REFUSED } from '../../../src-shared/job-spec.js';
import type { FaultOptions } from './faults.js';
import type { EngineJob } from './job-store.js';

/**
 * A finished or failed job's poll answer (§2.3; also the finish webhook's body): download addresses
 * made fresh by `presign` each time, and the faults a test asked for.
 */
export function resultBodyOf(
  job: EngineJob,
  faults: FaultOptions,
  presign: (method: 'GET', path: string) => string,
): Record<string, unknown> {
  const failMessage = job.state === 'failed' ? (job.error ?? 'processing failed') : faults.failJobs?.message;
  if (failMessage !== undefined)
    return { success: false, jobId: job.id, message: failMessage, outputFiles: { meshes: [] } };
  const status = faults.outputStatus ?? OUTPUT_AVAILABLE;
  return {
    success: true,
    jobId: job.id,
    outputFiles: {
      meshes: job.meshes.map((m, i) =>
        m.refused !== undefined
          ? // Not made: no file and no address; a status other than Available and a message say why.
            {
              status: OUTPUT_REFUSED,
              extension: m.extension,
              structures: m.structures,
              message: m.refused,
            }
          : {
              status,
              ...faults.outputStatusAt?.[i],
              size: m.size,
              extension: m.extension,
              structures: m.structures,
              ...(m.uploadUrl
                ? {}
                : {
                    url: presign(
                      'GET',
                      `/storage/${job.id}/outputs/${i}/${meshFileName(m.structures, m.extension)}`,
                    ),
                  }),
              ...(m.note !== undefined ? { note: m.note } : {}),
              ...(m.triangles !== undefined ? { triangles: m.triangles } : {}),
            },
      ),
    },
    engine: 'scan2mesh local engine',
  };
}
