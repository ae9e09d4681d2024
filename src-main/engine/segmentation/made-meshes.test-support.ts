import type { MadeMesh, ProcessorResult } from '../processor.js';

/** The meshes of a job expected to make every one of them; a refused one fails the test, saying why. */
export function madeMeshes(result: ProcessorResult): MadeMesh[] {
  return result.meshes.map((m, i) => {
    if (m.refused !== undefined) throw new Error(`mesh ${i + 1} was refused: ${m.refused}`);
    return m;
  });
}
