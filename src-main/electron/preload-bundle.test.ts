import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

// The preload is bundled the way src-main/build-main.mjs bundles it: one CommonJS file, only 'electron'
// left to require (a sandboxed preload can require nothing else).
async function bundlePreload() {
  const result = await build({
    entryPoints: ['src-main/electron/preload.entry.ts'],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['electron'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return { bytes: result.outputFiles[0]!.contents.byteLength, inputs: Object.keys(result.metafile.inputs) };
}

describe('the preload bundle', () => {
  it('stays under 50 KB: channel names only, no zod, no schemas (validation is the main process’s)', async () => {
    const { bytes, inputs } = await bundlePreload();
    expect(bytes).toBeLessThan(50 * 1024);
    expect(inputs.filter((p) => p.includes('node_modules'))).toEqual([]);
    expect(inputs.filter((p) => /zod|src-shared\/contract\.ts/.test(p))).toEqual([]);
    expect(inputs).toContain('src-shared/channels.generated.ts');
  });
});
