// Bundles the Node side: every `*.entry.ts` under src-main becomes dist/main/<name>.cjs, the command
// line becomes cli.cjs and a bundle per command, and the preload becomes one self-contained CommonJS
// file (a sandboxed preload can only require 'electron').
import { build } from 'esbuild';
import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

function findEntries(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...findEntries(p));
    else if (e.name.endsWith('.entry.ts')) out.push(p);
  }
  return out;
}

// Another folder for the bundle tests (src-main/cli/cli-bundles.test.ts); the app's is dist/main.
const OUT = process.argv[2] ?? 'dist/main';

const entries = findEntries('src-main').filter((p) => !p.endsWith('preload.entry.ts'));

// Libraries stay in node_modules (native modules, WASM, files read at run time), except zod: loaded
// from there it is 95 files and about 100 ms of every process's start, 64 of them its translations of
// error messages into other languages, which this app never shows. Bundled, with only its English
// messages, it is one parse of the bundle.
// Commander too: its seven files resolved and read from node_modules at every start of the command
// line, where one bundle is read once.
const BUNDLED_LIBRARIES = ['zod', 'commander'];
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
// Commander loads node:child_process at its start (~2 ms of every command) for one use: running a
// subcommand that is a program of its own, which scan2mesh has none of. Bundled, it loads it on that
// use only. The build fails, rather than quietly keeping the cost, when commander's line changes.
const CHILD_PROCESS_LINE = "const childProcess = require('node:child_process');";
const commanderLazyChildProcess = {
  name: 'commander-lazy-child-process',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/ }, (a) => {
      const source = readFileSync(a.path, 'utf8');
      if (!source.includes(CHILD_PROCESS_LINE))
        throw new Error(`${a.path} no longer has the line ${CHILD_PROCESS_LINE}: see build-main.mjs`);
      return {
        contents: source.replace(
          CHILD_PROCESS_LINE,
          "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
        ),
        loader: 'js',
      };
    });
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
  plugins: [zodInEnglish, commanderLazyChildProcess],
};

await build({
  ...common,
  entryPoints: Object.fromEntries(entries.map((p) => [basename(p, '.entry.ts'), p])),
  outdir: OUT,
  outExtension: { '.js': '.cjs' },
});
// The command line loads only the command it runs (commands/catalog.ts imports each one on demand),
// but bundled into one file every command is still parsed at every start: 1 MB, some 50 ms of
// `inspect` or `--help`. So cli.cjs holds the dispatcher alone, each command is a bundle of its own
// (cli-<command>.cjs) that it requires when named, and the modules whose classes cross from a command
// back to the dispatcher (errors and exit codes, told apart with instanceof) are bundles both require,
// so that there is one class of each.
const CATALOG = resolve('src-main/cli/commands/catalog.ts');
const SHARED_BY_COMMANDS = {
  [resolve('src-shared/errors.ts')]: './cli-errors.cjs',
  [resolve('src-main/cli/exit-codes.ts')]: './cli-exit-codes.cjs',
};
const commandFile = (source) => `cli-${basename(source, '.ts').replace(/-command$/, '')}`;
const commandSources = [...readFileSync(CATALOG, 'utf8').matchAll(/import\('(\.\/[\w-]+)\.js'\)/g)].map((m) =>
  resolve(dirname(CATALOG), `${m[1]}.ts`),
);
if (commandSources.length === 0) {
  console.error(`No command found in ${CATALOG}: its imports no longer look like import('./<name>.js').`);
  process.exit(1);
}
const commandsApart = {
  name: 'commands-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (a) => {
      if (a.kind === 'entry-point') return undefined;
      const source = resolve(a.resolveDir, a.path).replace(/\.js$/, '.ts');
      // Through a stub that requires the bundle: an import() left in the output would go through
      // Node's ES module loader, slower to start than require.
      if (a.importer === CATALOG && a.kind === 'dynamic-import')
        return { path: `./${commandFile(source)}.cjs`, namespace: 'command-bundle' };
      if (a.namespace === 'command-bundle') return { path: a.path, external: true };
      const shared = SHARED_BY_COMMANDS[source];
      return shared ? { path: shared, external: true } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'command-bundle' }, (a) => ({
      contents: `module.exports = require(${JSON.stringify(a.path)});`,
      loader: 'js',
    }));
  },
};
const apart = { ...common, outdir: OUT, plugins: [...common.plugins, commandsApart] };
await build({
  ...apart,
  entryPoints: {
    ...Object.fromEntries(commandSources.map((s) => [commandFile(s), s])),
    'cli-errors': 'src-shared/errors.ts',
    'cli-exit-codes': 'src-main/cli/exit-codes.ts',
  },
  outExtension: { '.js': '.cjs' },
});
// The CLI is also the package's bin: it needs a shebang.
await build({
  ...apart,
  entryPoints: { cli: 'src-main/cli/cli.ts' },
  outExtension: { '.js': '.cjs' },
  banner: { js: '#!/usr/bin/env node\n' + common.banner.js },
});
const preload = await build({
  ...common,
  entryPoints: { preload: 'src-main/electron/preload.entry.ts' },
  outdir: OUT,
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
