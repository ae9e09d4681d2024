import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const isBundled = typeof __BUNDLED__ !== 'undefined' && __BUNDLED__;

/** The built renderer: beside the bundle (dist/main -> dist/renderer), or in dist/ when the source runs. */
export function rendererDir(): string {
  return isBundled ? resolve(here, '..', 'renderer') : resolve(here, '..', '..', 'dist', 'renderer');
}
