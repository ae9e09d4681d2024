import { defineConfig, type Plugin, type Rollup } from 'vite';
import react from '@vitejs/plugin-react';

/** The chunk of the app's code (src-renderer/shell/render-app.tsx), which the entry imports dynamically. */
function appChunk(bundle: Rollup.OutputBundle): Rollup.OutputChunk | undefined {
  return Object.values(bundle).find(
    (c): c is Rollup.OutputChunk =>
      c.type === 'chunk' && !!c.facadeModuleId?.endsWith('/src-renderer/shell/render-app.tsx'),
  );
}

/**
 * The app's code is a dynamic import of the entry (src-renderer/main.tsx), so that the browser
 * evaluates it in a task of its own after React DOM's. Links in the page let the browser fetch and
 * compile it, and load its styles, meanwhile, instead of only once React DOM has been evaluated.
 */
function preloadApp(): Plugin {
  return {
    name: 'scan2mesh:preload-app',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const app = ctx.bundle && appChunk(ctx.bundle);
        if (!app) return [];
        const link = (rel: string, file: string) => ({
          tag: 'link',
          attrs: { rel, crossorigin: true, href: `./${file}` },
          injectTo: 'head' as const,
        });
        return [
          ...[app.fileName, ...app.imports]
            .filter((f) => f !== ctx.chunk?.fileName)
            .map((f) => link('modulepreload', f)),
          ...[...(app.viteMetadata?.importedCss ?? [])].map((f) => link('stylesheet', f)),
        ];
      },
    },
  };
}

/** V8's hint that every function in the file runs while the page loads (Chromium 136 and later). */
const EAGER_COMPILE_HINT = '//# allFunctionsCalledOnLoad\n';

/**
 * Marks the first page's chunks (the entry with React DOM, the app's code, and what they import)
 * for eager compilation. V8 otherwise compiles a function on the main thread the first time it
 * runs: React DOM's module body (one function, as a CommonJS module bundled) when the entry is
 * evaluated, then hundreds of React's and the app's functions during the first render. With the
 * hint V8 compiles them on a background thread while it streams the files: the most script run in
 * one of the first page's long frames went from a median of 24 ms to 10 ms (8 page loads each, 2
 * cores), for 0.3 MB more heap. The viewer's chunk (three.js, mostly not run on load) stays lazy.
 */
function eagerCompileFirstPage(): Plugin {
  return {
    name: 'scan2mesh:eager-compile-first-page',
    apply: 'build',
    enforce: 'post',
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        const chunks = Object.values(bundle).filter((c): c is Rollup.OutputChunk => c.type === 'chunk');
        // Only the app's own page: other pages built with this config (the viewer's bench page) keep
        // V8's default, as the viewer has it in the app.
        const entry = chunks.find((c) => c.isEntry && c.facadeModuleId?.endsWith('/src-renderer/index.html'));
        if (!entry) return;
        const app = appChunk(bundle);
        const names = new Set([entry, app].flatMap((c) => (c ? [c.fileName, ...c.imports] : [])));
        for (const chunk of chunks.filter((c) => names.has(c.fileName))) {
          chunk.code = EAGER_COMPILE_HINT + chunk.code;
          // One line more at the top: the source map's lines move down by one (';' is an empty line).
          if (chunk.map) chunk.map.mappings = `;${chunk.map.mappings}`;
          const mapAsset = bundle[`${chunk.fileName}.map`];
          if (mapAsset?.type === 'asset' && typeof mapAsset.source === 'string') {
            const map = JSON.parse(mapAsset.source) as { mappings: string };
            map.mappings = `;${map.mappings}`;
            mapAsset.source = JSON.stringify(map);
          }
        }
      },
    },
  };
}

// The renderer is served from file:// in Electron and from loopback in web mode: relative base works for both.
export default defineConfig({
  root: 'src-renderer',
  base: './',
  plugins: [react(), preloadApp(), eagerCompileFirstPage()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 2000,
  },
  worker: { format: 'es' },
});
