import { BufferGeometry, Float32BufferAttribute, Group, LineBasicMaterial, LineLoop } from 'three';
import type { Scene } from 'three';
import type { SlicePlane } from '../../src-shared/scans';
import { useSlicePlanes, type SliceQuad } from './slice-planes-store';

/** Each plane's colour, as in Slicer: axial red, coronal green, sagittal yellow. */
const COLOURS: Record<SlicePlane, number> = { axial: 0xd9453b, coronal: 0x3fa34d, sagittal: 0xe0b526 };

/**
 * Draws the slices the scan check shows as rectangles through the meshes
 * in the 3D view. Lines only: a filled plane would be hit when the user picks points to measure.
 * Returns the function that removes them. The viewer calls it once with its scene (one field in
 * SceneController) and the returned function when it is disposed.
 */
export function attachSlicePlanes(scene: Scene, requestRender: () => void): () => void {
  const group = new Group();
  group.name = 'slice-planes';
  scene.add(group);
  const materials = new Map<SlicePlane, LineBasicMaterial>();
  const material = (plane: SlicePlane): LineBasicMaterial => {
    let m = materials.get(plane);
    if (!m)
      materials.set(
        plane,
        (m = new LineBasicMaterial({
          color: COLOURS[plane],
          depthTest: false,
          transparent: true,
          opacity: 0.9,
        })),
      );
    return m;
  };
  const clear = (): void => {
    for (const child of [...group.children]) {
      group.remove(child);
      (child as LineLoop).geometry.dispose();
    }
  };
  const build = (quads: Partial<Record<SlicePlane, SliceQuad>>, shown: boolean, render: boolean): void => {
    clear();
    if (shown) {
      for (const [plane, q] of Object.entries(quads) as [SlicePlane, SliceQuad][]) {
        const loop = new BufferGeometry();
        loop.setAttribute('position', new Float32BufferAttribute(q.flat(), 3));
        group.add(new LineLoop(loop, material(plane)));
      }
    }
    if (render) requestRender();
  };
  // The first build draws nothing itself: the viewer may call this before it can render.
  const s = useSlicePlanes.getState();
  build(s.quads, s.shown, false);
  const unsubscribe = useSlicePlanes.subscribe((st, prev) => {
    if (st.quads !== prev.quads || st.shown !== prev.shown) build(st.quads, st.shown, true);
  });
  return () => {
    unsubscribe();
    clear();
    scene.remove(group);
    for (const m of materials.values()) m.dispose();
  };
}
