import { useEffect, useState } from 'react';
import { cutMeshInSlices, type CutMesh } from './plane-cut';
import { patientToPixel, viewPlane, type SliceGeometry } from './slice-space';

/** A mesh to outline on the slices: its geometry in patient coordinates (LPS, mm) and its colour. */
export interface OutlineMesh {
  id: string;
  name: string;
  colour: string;
  mesh: CutMesh;
  /** False for a mesh opened from disk: it may not lie in this scan's frame; drawn dashed. */
  sharesFrame: boolean;
}

/** A mesh's cut through one view, in the view's pixel coordinates: [u1, v1, u2, v2, ...]. */
interface ViewOutline {
  id: string;
  colour: string;
  dashed: boolean;
  /** Polylines [u, v, u, v, ...]. */
  lines: Float32Array[];
}

/**
 * Cuts each mesh by the view's plane and projects the segments onto the view's pixels. Large
 * meshes are cut a few chunks at a time (cutMeshInSlices), so the window stays responsive;
 * rejects once the signal aborts.
 */
export async function outlinesForView(
  meshes: readonly OutlineMesh[],
  geometry: SliceGeometry,
  signal?: AbortSignal,
): Promise<ViewOutline[]> {
  const plane = viewPlane(geometry);
  const outlines: ViewOutline[] = [];
  for (const m of meshes) {
    const cut = await cutMeshInSlices(m.mesh, plane, signal);
    const segments = new Float32Array((cut.length / 3) * 2);
    for (let s = 0, o = 0; s < cut.length; s += 3, o += 2) {
      const [u, v] = patientToPixel(geometry, [cut[s]!, cut[s + 1]!, cut[s + 2]!]);
      segments[o] = u;
      segments[o + 1] = v;
    }
    outlines.push({ id: m.id, colour: m.colour, dashed: !m.sharesFrame, lines: chainSegments(segments) });
  }
  return outlines;
}

/** One empty list, so a view without meshes keeps the same value from render to render. */
const NO_OUTLINES: ViewOutline[] = [];

/**
 * The outlines of the meshes on one slice, for a slice view: cut off the critical path (see
 * outlinesForView) whenever the slice or the meshes change; an older cut still under way is
 * abandoned. Until the new cut is ready the view keeps the last outlines.
 */
export function useViewOutlines(
  meshes: readonly OutlineMesh[],
  geometry: SliceGeometry | null,
): ViewOutline[] {
  const [latest, setLatest] = useState<ViewOutline[]>(NO_OUTLINES);
  const wanted = geometry !== null && meshes.length > 0;
  useEffect(() => {
    if (!geometry || meshes.length === 0) return;
    const abort = new AbortController();
    outlinesForView(meshes, geometry, abort.signal).then(setLatest, () => {
      // Aborted: a newer slice or mesh list has its own cut under way.
    });
    return () => abort.abort();
  }, [meshes, geometry]);
  return wanted ? latest : NO_OUTLINES;
}

/**
 * Joins segments [u1, v1, u2, v2, ...] that share end points into polylines [u, v, u, v, ...], so a
 * dash pattern runs along the outline instead of restarting on every tiny segment (each triangle
 * gives one). End points match when equal to 1/1000 of a pixel.
 */
export function chainSegments(segments: Float32Array): Float32Array[] {
  const n = Math.floor(segments.length / 4);
  const key = (i: number): string =>
    `${Math.round(segments[i]! * 1000)},${Math.round(segments[i + 1]! * 1000)}`;
  // End point -> segments that touch it (each end counted once per segment).
  const ends = new Map<string, number[]>();
  for (let s = 0; s < n; s++) {
    for (const e of [s * 4, s * 4 + 2]) {
      const k = key(e);
      const list = ends.get(k);
      if (list) list.push(s);
      else ends.set(k, [s]);
    }
  }
  const used = new Uint8Array(n);
  const lines: Float32Array[] = [];
  const extend = (out: number[], fromKey: string): void => {
    let k = fromKey;
    for (;;) {
      const next = ends.get(k)?.find((s) => !used[s]);
      if (next === undefined) return;
      used[next] = 1;
      const a = next * 4;
      const far = key(a) === k ? a + 2 : a;
      out.push(segments[far]!, segments[far + 1]!);
      k = key(far);
    }
  };
  for (let s = 0; s < n; s++) {
    if (used[s]) continue;
    used[s] = 1;
    const a = s * 4;
    const forward = [segments[a]!, segments[a + 1]!, segments[a + 2]!, segments[a + 3]!];
    extend(forward, key(a + 2));
    const backward: number[] = [];
    extend(backward, key(a));
    // backward holds points beyond the start, nearest first: prepend them reversed.
    const pts: number[] = [];
    for (let i = backward.length - 2; i >= 0; i -= 2) pts.push(backward[i]!, backward[i + 1]!);
    lines.push(Float32Array.from([...pts, ...forward]));
  }
  return lines;
}
