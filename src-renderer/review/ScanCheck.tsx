import { useMemo, useState } from 'react';
import type { JobView } from '../../src-shared/jobs';
import { meshRegistry } from '../viewer/mesh-registry';
import { useViewerStore } from '../viewer/viewer-store';
import type { OutlineMesh } from './outline';
import { useSlicePlanes } from './slice-planes-store';
import { SliceReview } from './SliceReview';

/**
 * The result checked against its scan, under the 3D view: the job's series in three linked views
 * with every visible mesh's outline on each slice, in the mesh's colour. Job outputs are in the
 * scan's patient coordinates (LPS, mm); a mesh opened from disk may not be, so it is drawn dashed
 * and named as such.
 *
 * The panel folds away to its title (a disclosure button): on a short window it would otherwise leave
 * the 3D view a strip. Folded, the slices stay loaded and the planes stay in the 3D view.
 */
export function ScanCheck({ job }: { job: JobView }) {
  const items = useViewerStore((s) => s.items);
  const planesShown = useSlicePlanes((s) => s.shown);
  const meshes = useMemo((): OutlineMesh[] => {
    const out: OutlineMesh[] = [];
    for (const item of items) {
      const mesh = meshRegistry.get(item.id);
      if (!item.visible || !mesh) continue;
      out.push({
        id: item.id,
        name: item.name,
        colour: item.colour,
        mesh,
        sharesFrame: item.origin === 'job' && item.id.startsWith(`${job.id}:`),
      });
    }
    return out;
  }, [items, job.id]);
  const foreign = meshes.filter((m) => !m.sharesFrame);
  const [open, setOpen] = useState(true);
  const bodyId = `scan-check-body-${job.id}`;

  return (
    <section className="scan-check" aria-labelledby={`scan-check-${job.id}`} data-testid="scan-check">
      <h2 id={`scan-check-${job.id}`} className="scan-check-title">
        <button
          type="button"
          className="scan-check-toggle"
          aria-expanded={open}
          aria-controls={bodyId}
          data-testid="scan-check-toggle"
          onClick={() => setOpen((o) => !o)}
        >
          <span className="scan-check-chevron" aria-hidden="true" />
          Checked against the scan: {job.scanName}
        </button>
      </h2>
      <div id={bodyId} className="scan-check-body" hidden={!open}>
        {foreign.length > 0 && (
          <p className="scan-check-note" data-testid="frame-warning">
            {foreign.map((m) => m.name).join(', ')} {foreign.length === 1 ? 'was' : 'were'} opened from disk,
            not made from this scan: {foreign.length === 1 ? 'it' : 'they'} may not share the scan’s
            coordinates, so the dashed outline may lie off the anatomy without anything being wrong.
          </p>
        )}
        {job.seriesId ? (
          <>
            <label className="scan-check-planes">
              <input
                type="checkbox"
                checked={planesShown}
                onChange={(e) => useSlicePlanes.getState().setShown(e.target.checked)}
              />
              Show the three slice planes in the 3D view
            </label>
            <SliceReview seriesId={job.seriesId} label={job.scanName} meshes={meshes} publishPlanes />
          </>
        ) : (
          <p className="muted">
            This job does not say which scan it was made from, so its meshes cannot be drawn on the slices.
          </p>
        )}
      </div>
    </section>
  );
}
