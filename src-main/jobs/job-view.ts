import type { JobView } from '../../src-shared/jobs.js';
import type { JobProgress, JobRecord } from './job-record.js';
import { sourceOf } from './job-source.js';

/** What the UI shows of a job (src-shared JobViewSchema); `live` overlays progress not yet written. */
export function toView(r: JobRecord, live?: JobProgress): JobView {
  const view: JobView = {
    id: r.id,
    scanName: r.scanName,
    seriesDescription: r.seriesDescription,
    seriesId: r.seriesId,
    meshes: r.meshes,
    profileId: r.profileId,
    profileName: r.profileName,
    deidentify: r.deidentify,
    state: r.state,
    progress: { ...(live ?? r.progress) },
    outputs: r.outputs
      .filter((o) => o.status === 'saved' && o.path !== undefined)
      .map((o) => ({
        path: o.path as string,
        bytes: o.bytes ?? 0,
        structures: o.structures,
        extension: o.extension,
        ...(o.note !== undefined ? { note: o.note } : {}),
      })),
    outputDir: r.outputDir,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    priority: r.priority,
    submissionSeq: r.submissionSeq,
  };
  if (r.remoteJobId) view.remoteJobId = r.remoteJobId;
  if (r.batchId) view.batchId = r.batchId;
  if (r.error) view.error = r.error;
  if (r.startedAt) view.startedAt = r.startedAt;
  if (r.finishedAt) view.finishedAt = r.finishedAt;
  const source = sourceOf(r.sourceFiles);
  if (source) view.source = source;
  return view;
}
