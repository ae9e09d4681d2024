import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

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
        const chunks = Object.values(ctx.bundle ?? {});
        const app = chunks.find(
          (c) => c.type === 'chunk' && c.facadeModuleId?.endsWith('/src-renderer/shell/render-app.tsx'),
        );
        if (!app || app.type !== 'chunk') return [];
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

// The renderer is served from file:// in Electron and from loopback in web mode: relative base works for both.
export default defineConfig({
  root: 'src-renderer',
  base: './',
  plugins: [react(), preloadApp()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 2000,
  },
  worker: { format: 'es' },
});
