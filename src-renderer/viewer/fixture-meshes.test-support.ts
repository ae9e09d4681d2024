/**
 * Vitest runs the viewer's tests in Node; they read the real fixture meshes from disk. The
 * renderer may not import Node modules (lint) and has no Node types, so the one function needed
 * is taken from Node's module registry at run time, for tests only.
 */
interface NodeFs {
  readFileSync(path: URL): Uint8Array;
}
const nodeProcess = (globalThis as unknown as { process: { getBuiltinModule(id: 'node:fs'): NodeFs } })
  .process;
const fs = nodeProcess.getBuiltinModule('node:fs');

const MESH_DIR = new URL('../../../shared/fixtures/mesh/', import.meta.url);

/** A fixture mesh (../shared/fixtures/mesh/...) as its own ArrayBuffer. */
export function fixtureMesh(path: string): ArrayBuffer {
  const b = fs.readFileSync(new URL(path, MESH_DIR));
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
}
