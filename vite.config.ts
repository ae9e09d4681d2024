import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The renderer is served from file:// in Electron and from loopback in web mode: relative base works for both.
export default defineConfig({
  root: 'src-renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 2000,
  },
  worker: { format: 'es' },
});
