// One private temporary folder for a whole test run (vitest's and Playwright's global setup): every
// test process, engine, browser and keyring it starts inherits TMPDIR pointing here, and the folder
// goes when the run ends. Tests copy real scans into temporary folders; without this each run left
// hundreds of them (data folders, unpacked scans, browser profiles) in the system's temporary folder,
// where they stayed and slowed every later sweep of the app's stale folders (temp-folders.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), 's2m-test-run-'));
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}
