import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { mkdirSync } from 'node:fs';

const here = dirname(fileURLToPath(import.meta.url));
const isBundled = typeof __BUNDLED__ !== 'undefined' && __BUNDLED__;

/**
 * Path of a worker thread's script, given the source path of its `*.entry.ts` relative to src-main
 * (e.g. 'engine/mesh-worker.entry.ts').
 * In the bundle every entry sits beside this code as `<name>.cjs`. When tests run the TypeScript
 * source, a worker cannot load .ts, so the entry is bundled once on demand with esbuild (a dev dependency).
 */
export async function workerScript(entryFromSrcMain: string): Promise<string> {
  const name = entryFromSrcMain.replace(/^.*\//, '').replace(/\.entry\.ts$/, '');
  if (isBundled) return join(here, `${name}.cjs`);
  const srcMain = resolve(here, '..');
  const outDir = resolve(srcMain, '..', 'node_modules', '.cache', 'scan2mesh-workers');
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, `${name}.cjs`);
  const pending = builds.get(outfile) ?? buildOnce(resolve(srcMain, entryFromSrcMain), outfile);
  builds.set(outfile, pending);
  await pending;
  return outfile;
}

const builds = new Map<string, Promise<void>>();

async function buildOnce(entry: string, outfile: string): Promise<void> {
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    logLevel: 'warning',
    define: { 'import.meta.url': '__scan2meshImportMetaUrl', __BUNDLED__: 'true' },
    banner: { js: "const __scan2meshImportMetaUrl = require('url').pathToFileURL(__filename).href;" },
  });
}
