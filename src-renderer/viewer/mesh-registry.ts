import type { ChunkedMesh } from './mesh-chunks.js';

/**
 * The loaded geometry, by scene item id, outside React and zustand: the arrays are large and
 * must never be copied or diffed, and they outlive the canvas (leaving the viewer and coming
 * back shows the same scene without loading again).
 */
const meshes = new Map<string, ChunkedMesh>();

export const meshRegistry = {
  get: (id: string): ChunkedMesh | undefined => meshes.get(id),
  set: (id: string, mesh: ChunkedMesh): void => void meshes.set(id, mesh),
  delete: (id: string): void => void meshes.delete(id),
  ids: (): string[] => [...meshes.keys()],
};
