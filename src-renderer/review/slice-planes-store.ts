import { create } from 'zustand';
import type { SlicePlane } from '../../src-shared/scans';
import type { Vec3 } from './slice-space';

/** A slice's rectangle in patient coordinates (LPS, mm): its four corners in order. */
export type SliceQuad = [Vec3, Vec3, Vec3, Vec3];

interface SlicePlanesState {
  /** The slices the scan check shows now; the 3D viewer draws them through the meshes. */
  quads: Partial<Record<SlicePlane, SliceQuad>>;
  /** The user's choice: draw the planes in 3D. */
  shown: boolean;
  setQuad(plane: SlicePlane, quad: SliceQuad | null): void;
  setShown(shown: boolean): void;
}

export const useSlicePlanes = create<SlicePlanesState>()((set) => ({
  quads: {},
  shown: true,
  setQuad: (plane, quad) =>
    set((s) => {
      const quads = { ...s.quads };
      if (quad) quads[plane] = quad;
      else delete quads[plane];
      return { quads };
    }),
  setShown: (shown) => set({ shown }),
}));
