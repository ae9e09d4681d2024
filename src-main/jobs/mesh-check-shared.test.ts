import { readFile, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { BAD_INPUTS, bytes, latin1 } from '../../src-shared/mesh-bad-inputs.test-support.js';
import { LineSplitter, MAX_LINE_BYTES } from '../../src-shared/mesh-text.js';
import { tempFolders } from '../scans/scans.test-support.js';
import { FIXTURES } from './jobs.test-support.js';
import { checkMeshFile } from './output-place.js';

const fixture = (path: string): Uint8Array => readFileSync(join(FIXTURES, 'mesh', path));
const { root: dir } = tempFolders('scan2mesh-mesh-shared-');
let made = 0;

/** The check's verdict on these bytes saved as a download: undefined when kept. */
async function verdict(data: Uint8Array, ext: string): Promise<string | undefined> {
  const path = join(dir, `download-${++made}.${ext}`);
  await writeFile(path, data);
  return checkMeshFile(path, `.${ext}`, `mesh.${ext}`).then(
    () => undefined,
    (e: unknown) => (e as Error).message,
  );
}

describe('the download check, on the files the viewer refused or showed wrong (audit B)', () => {
  for (const input of BAD_INPUTS)
    it(input.what, async () => {
      const got = await verdict(input.make(fixture), input.ext);
      if (input.says instanceof RegExp) expect(got).toMatch(input.says);
      else expect(got).toBeUndefined();
    });

  it('stops reading a text mesh without line breaks once a line passes 1 MiB', async () => {
    const push = vi.spyOn(LineSplitter.prototype, 'push');
    try {
      const obj = latin1(fixture('spot-public-domain.obj'));
      const got = await verdict(bytes(`${obj}f 1 2 3${' 1'.repeat(4_000_000)}`), 'obj');
      expect(got).toMatch(/line 12,012 is longer than 1,048,576 bytes: not an OBJ mesh/);
      // Read up to the bound and a slice more, not the 8 MB of the file.
      const read = push.mock.calls.reduce((n, [text]) => n + text.length, 0);
      expect(read).toBeLessThan(obj.length + MAX_LINE_BYTES + 300_000);
    } finally {
      push.mockRestore();
    }
  });

  it('says the counts of a binary STL cut short in words, and that it is truncated', async () => {
    const stl = Buffer.from(await readFile(join(FIXTURES, 'mesh', 'spider-binary.stl')));
    stl.writeUInt32LE(1_000_000_000, 80);
    expect(await verdict(stl, 'stl')).toMatch(
      /header announces 1,000,000,000 triangles \(50,000,000,084 bytes\) but the file has only 68,484 bytes, so it is truncated/,
    );
  });
});
