/** The mesh files the local engine writes, by extension (the service's `outputFiles.meshes[].extension`). */
export type MeshFormat = '.stl' | '.ply' | '.obj' | '.drc';
export const MESH_FORMATS: readonly MeshFormat[] = ['.stl', '.ply', '.obj', '.drc'];

export function isMeshFormat(ext: string): ext is MeshFormat {
  return (MESH_FORMATS as readonly string[]).includes(ext);
}
