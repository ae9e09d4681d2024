import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Reads a JSON file; a missing file gives `fallback`, a corrupt one is kept aside and gives `fallback`. */
export function readJsonFile(path: string, fallback: unknown, onCorrupt?: (err: unknown) => void): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw e;
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    // Never lose the user's settings silently: keep the unreadable file for inspection.
    renameSync(path, `${path}.corrupt-${Date.now()}`);
    onCorrupt?.(e);
    return fallback;
  }
}

/** Writes through a temporary file and a rename, so a crash mid-write never leaves half a file. */
export function writeJsonFileAtomic(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, path);
}
