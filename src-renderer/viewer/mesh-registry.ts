import type { IndexedMesh } from './weld.js';

/**
 * The loaded geometry, by scene item id, outside React and zustand: the arrays are large and
 * must never be copied or diffed, and they outlive the canvas (leaving the viewer and coming
 * back shows the same scene without loading again).
 */
const meshes = new Map<string, IndexedMesh>();

export const meshRegistry = {
  get: (id: string): IndexedMesh | undefined => meshes.get(id),
  set: (id: string, mesh: IndexedMesh): void => void meshes.set(id, mesh),
  delete: (id: string): void => void meshes.delete(id),
  ids: (): string[] => [...meshes.keys()],
};
