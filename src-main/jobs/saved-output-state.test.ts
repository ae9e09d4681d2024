import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { notAsSavedError, savedOutputState, savedOutputStateAsync } from './saved-output-state.js';

const dir = mkdtempSync(join(tmpdir(), 'scan2mesh-saved-output-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a mesh a job saved, looked at again later', () => {
  it('is the job result while it is the file of the size saved, and says why not in words otherwise', async () => {
    const path = join(dir, 'skull.stl');
    writeFileSync(path, 'solid skull\n');
    const saved = { path, bytes: 'solid skull\n'.length };
    expect(savedOutputState(saved)).toBe('saved');
    expect(await savedOutputStateAsync(saved)).toBe('saved');
    expect(notAsSavedError(saved)).toBeUndefined();

    writeFileSync(path, 'solid something else\n');
    expect(savedOutputState(saved)).toBe('changed');
    expect(await savedOutputStateAsync(saved)).toBe('changed');
    expect(notAsSavedError(saved)?.message).toBe(
      `skull.stl has changed since the job saved it (12 bytes then, another size now), so it is not the job's result.`,
    );

    rmSync(path);
    expect(savedOutputState(saved)).toBe('missing');
    expect(await savedOutputStateAsync(saved)).toBe('missing');
    const missing = notAsSavedError(saved);
    expect(missing).toMatchObject({ code: 'not-found' });
    expect(missing?.message).toBe(`skull.stl is no longer where the job saved it (${path}).`);
    expect(missing?.action).toMatch(/moved, renamed or deleted/);
    // A finished job is not run again: the advice is one the app can follow.
    expect(missing?.action).toMatch(/submit the scan again/);

    // A folder made where the file was is no mesh either.
    mkdirSync(path);
    expect(savedOutputState(saved)).toBe('missing');
    expect(await savedOutputStateAsync(saved)).toBe('missing');
  });
});
