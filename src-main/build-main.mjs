// Bundles the Node side: every `*.entry.ts` under src-main becomes dist/main/<name>.cjs, and the
// preload becomes one self-contained CommonJS file (a sandboxed preload can only require 'electron').
import { build } from 'esbuild';
import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

function findEntries(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...findEntries(p));
    else if (e.name.endsWith('.entry.ts')) out.push(p);
  }
  return out;
}

const entries = findEntries('src-main').filter((p) => !p.endsWith('preload.entry.ts'));

// Libraries stay in node_modules (native modules, WASM, files read at run time), except zod: loaded
// from there it is 95 files and about 100 ms of every process's start, 64 of them its translations of
// error messages into other languages, which this app never shows. Bundled, with only its English
// messages, it is one parse of the bundle.
const BUNDLED_LIBRARIES = ['zod'];
const dependencies = Object.keys(JSON.parse(readFileSync('package.json', 'utf8')).dependencies);
const external = [
  ...dependencies.filter((d) => !BUNDLED_LIBRARIES.includes(d)),
  'electron',
  // Only the TypeScript sources load esbuild (to build worker scripts on demand); the bundles never do.
  'esbuild',
];
const zodInEnglish = {
  name: 'zod-in-english',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.c?js$/ }, (a) =>
      a.importer.includes(`${join('node_modules', 'zod')}`)
        ? { path: join(dirname(a.importer), a.path), namespace: 'zod-locales' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (a) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(a.path), 'en.js'))};`,
      loader: 'js',
      resolveDir: dirname(a.path),
    }));
  },
};
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  // import.meta.url does not exist in CommonJS: give the bundle a real one so the same source works in both.
  define: { 'import.meta.url': '__scan2meshImportMetaUrl', __BUNDLED__: 'true' },
  banner: { js: "const __scan2meshImportMetaUrl = require('url').pathToFileURL(__filename).href;" },
  external,
  plugins: [zodInEnglish],
};

await build({
  ...common,
  entryPoints: Object.fromEntries(entries.map((p) => [basename(p, '.entry.ts'), p])),
  outdir: 'dist/main',
  outExtension: { '.js': '.cjs' },
});
// The CLI is also the package's bin: it needs a shebang.
await build({
  ...common,
  entryPoints: { cli: 'src-main/cli/cli.ts' },
  outdir: 'dist/main',
  outExtension: { '.js': '.cjs' },
  banner: { js: '#!/usr/bin/env node\n' + common.banner.js },
});
const preload = await build({
  ...common,
  entryPoints: { preload: 'src-main/electron/preload.entry.ts' },
  outdir: 'dist/main',
  outExtension: { '.js': '.cjs' },
  // Everything but Electron bundled, so that the check below sees any library it pulls in.
  external: ['electron'],
  plugins: [],
  metafile: true,
});
// The preload carries channel names only (src-shared/channels.ts); a library in it (zod through the
// contract, say) means a main-process concern leaked into the renderer's process.
const bundled = Object.keys(preload.metafile.inputs).filter((p) => p.includes('node_modules'));
if (bundled.length > 0) {
  console.error(`The preload must not bundle libraries; it pulled in:\n  ${bundled.join('\n  ')}`);
  process.exit(1);
}
