import { createRequire } from 'node:module';

/**
 * A library loaded on first use rather than when its importer loads. Each module the command line
 * bundles is loaded at its start, used or not: `scan2mesh inspect` paid ~2.5 ms for dicom-parser that
 * the files it read never needed, a local job ~4 ms each for zip64 and domain libraries it never
 * called. The library resolves from this project's node_modules, as a static import would.
 */
export function lazyLibrary<T>(name: string, prepare?: (library: T) => T): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) {
      const library = createRequire(import.meta.url)(name) as T;
      loaded = prepare ? prepare(library) : library;
    }
    return loaded;
  };
}
