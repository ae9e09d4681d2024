import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ACCEPTED_FINDINGS, EXCLUDED_CHECKS } from './electronegativity-accepted.test-support.js';

interface Finding {
  id: string;
  file: string;
  description: string;
  location: { line: number };
}
interface ScanResult {
  atomicChecks: number;
  globalChecks: number;
  errors: { file: string; message: string; tolerable: boolean }[];
  issues: Finding[];
}
type Run = (options: Record<string, unknown>) => Promise<ScanResult>;

const projectDir = resolve(import.meta.dirname, '..', '..');
const run = createRequire(import.meta.url)('@doyensec/electronegativity') as Run;
const electronVersion = (createRequire(import.meta.url)('electron/package.json') as { version: string })
  .version;

// What ships: the main-process and preload source, and the renderer (its page carries the CSP). The
// renderer's benchmark page is a developer tool that Vite does not build into the app.
const scanDir = mkdtempSync(join(tmpdir(), 'scan2mesh-electronegativity-'));
cpSync(join(projectDir, 'src-main', 'electron'), join(scanDir, 'electron'), {
  recursive: true,
  filter: (p) => !p.endsWith('.test.ts'),
});
cpSync(join(projectDir, 'src-renderer'), join(scanDir, 'renderer'), {
  recursive: true,
  filter: (p) => !p.includes(`${sep}bench`) && !/\.test\.tsx?$/.test(p),
});
afterAll(() => rmSync(scanDir, { recursive: true, force: true }));

describe('electronegativity over the Electron code and the renderer', () => {
  it('finds nothing but the reviewed findings, and every reviewed finding still occurs', async () => {
    const result = await run({
      input: scanDir,
      isRelative: true,
      electronVersionOverride: electronVersion,
      excludeFromScan: [...EXCLUDED_CHECKS],
    });
    expect(result.atomicChecks).toBeGreaterThan(30);
    expect(result.errors.filter((e) => !e.tolerable)).toEqual([]);
    const found = result.issues.map((i) => ({ id: i.id, file: i.file.split(sep).join('/') }));
    const accepted = (f: { id: string; file: string }): boolean =>
      ACCEPTED_FINDINGS.some((a) => a.id === f.id && a.file === f.file);
    expect(
      result.issues
        .filter((_, n) => !accepted(found[n]!))
        .map((i) => `${i.id} ${i.file}:${i.location.line} ${i.description}`),
    ).toEqual([]);
    for (const a of ACCEPTED_FINDINGS) expect(found).toContainEqual({ id: a.id, file: a.file });
  });
});
