import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { privateDirUnder } from './private-files.js';

const root = mkdtempSync(join(tmpdir(), 's2m-private-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const POSIX = process.platform !== 'win32';

describe('privateDirUnder', () => {
  it('makes the folders between the base and the path, private, and takes those that exist', async () => {
    const base = join(root, 'base');
    mkdirSync(base);
    mkdirSync(join(base, 'a'), { mode: 0o755 });
    await privateDirUnder(base, join(base, 'a', 'b', 'c'));
    expect(existsSync(join(base, 'a', 'b', 'c'))).toBe(true);
    if (POSIX) expect(statSync(join(base, 'a', 'b', 'c')).mode & 0o777).toBe(0o700);
    await privateDirUnder(base, join(base, 'a', 'b', 'c'));
  });

  it('never brings back a removed base: the folder a signal removed stays removed', async () => {
    const gone = join(root, 'removed-temp-folder');
    const err = await privateDirUnder(gone, join(gone, 'a0', 'copy1')).catch((e: unknown) => e);
    expect((err as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(existsSync(gone)).toBe(false);
  });

  it('refuses a path outside the base', async () => {
    await expect(privateDirUnder(join(root, 'x'), join(root, 'y'))).rejects.toThrow(/is not under/);
  });
});
