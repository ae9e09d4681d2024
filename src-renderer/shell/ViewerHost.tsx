import { useEffect, useId, useState } from 'react';
import { api, errorText, fetchAppFile, type ErrorText } from '../bridge/api';
import { ErrorNote } from '../common/ui';
import { isTerminal } from '../../src-shared/job-states';
import { describeMeshes } from '../jobs/job-format';
import { useJobs } from '../jobs/jobs-store';
import { ScanCheck } from '../review/ScanCheck';
import { ViewerScreen, type ViewerMeshSource } from '../viewer/ViewerScreen';
import { ScreenTitle } from './ScreenTitle';
import { useShell } from './screens';
import './viewer-host.css';

/**
 * Every output of a finished job as the viewer wants it (the bytes are fetched only when it loads
 * them), and why any cannot be shown: one the user moved or overwrote does not keep the others from view.
 */
async function sourcesFor(
  jobId: string,
  count: number,
): Promise<{ sources: ViewerMeshSource[]; failures: unknown[] }> {
  const settled = await Promise.allSettled(
    Array.from({ length: count }, (_, index) => api.jobs.openOutput({ id: jobId, index })),
  );
  const failures = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  const opened = settled.flatMap((r, index) => (r.status === 'fulfilled' ? [{ f: r.value, index }] : []));
  const sources = opened.map(({ f, index }) => ({
    id: `${jobId}:${index}`,
    name: f.name,
    structures: f.structures,
    format: f.format,
    load: async () => {
      const res = await fetchAppFile(f.url);
      if (!res.ok) throw new Error(`${f.name} could not be read from the app (${res.status}).`);
      return res.arrayBuffer();
    },
  }));
  return { sources, failures };
}

/** The Viewer screen: the viewer itself, with a line saying which job's meshes it shows. */
export function ViewerHost() {
  const jobId = useShell((s) => s.viewerJobId);
  const jobs = useJobs((s) => s.jobs);
  // A job that ended failed may still have saved some of its meshes (the service made only some).
  const done = jobs.filter((j) => isTerminal(j.state) && j.outputs.length > 0);
  const job = done.find((j) => j.id === jobId);
  const outputs = job?.outputs.length ?? 0;
  const [meshes, setMeshes] = useState<{ jobId: string; sources: ViewerMeshSource[] } | null>(null);
  const [failure, setFailure] = useState<{ jobId: string; error: ErrorText } | null>(null);
  const uid = useId();

  useEffect(() => {
    if (!jobId || outputs === 0) return;
    let live = true;
    sourcesFor(jobId, outputs).then(
      ({ sources, failures }) => {
        if (!live) return;
        setMeshes({ jobId, sources });
        if (failures.length > 0) setFailure({ jobId, error: errorText(failures[0]) });
      },
      (e: unknown) => live && setFailure({ jobId, error: errorText(e) }),
    );
    return () => {
      live = false;
    };
  }, [jobId, outputs]);

  const shown = meshes && meshes.jobId === jobId ? meshes.sources : undefined;
  const error = failure && failure.jobId === jobId ? failure.error : null;

  return (
    <div className="viewer-host">
      <div className="viewer-head">
        <ScreenTitle>Viewer</ScreenTitle>
        {done.length > 0 ? (
          <div className="row nowrap">
            <label htmlFor={`${uid}-job`}>Job</label>
            <select
              id={`${uid}-job`}
              value={job?.id ?? ''}
              onChange={(e) =>
                e.target.value ? useShell.getState().openInViewer(e.target.value) : undefined
              }
            >
              {!job && <option value="">Choose a finished job…</option>}
              {done.map((j) => (
                <option key={j.id} value={j.id}>
                  {j.scanName} — {describeMeshes(j)}
                  {j.state === 'done' ? '' : ` (${j.outputs.length} of ${j.meshes.length} saved)`}
                </option>
              ))}
            </select>
          </div>
        ) : (
          <p className="muted">
            No finished job yet: meshes appear here when a job is done. You can also drop mesh files here.
          </p>
        )}
      </div>
      {error && <ErrorNote error={error} onDismiss={() => setFailure(null)} />}
      <div className="viewer-body">
        <ViewerScreen {...(shown ? { meshes: shown } : {})} />
      </div>
      {job && <ScanCheck job={job} />}
    </div>
  );
}
