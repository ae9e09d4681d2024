import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyMany } from './header-scan-pool.js';

const FIXTURES = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'fixtures');

/** Resources that keep the event loop (and so the process) alive, by kind. */
function keepingAlive(kind: string): number {
  return process.getActiveResourcesInfo().filter((r) => r === kind).length;
}

describe('header scan pool', () => {
  it('leaves nothing holding the process open once a drop is read, even workers it never used', async () => {
    const before = keepingAlive('MessagePort');
    // One file: one worker reads it and the pool's other worker never gets any work.
    const file = `${FIXTURES}/dicom/multiframe/enhanced-ct-nema-ct0012-2frames.dcm`;
    const [result] = await classifyMany([{ path: file, display: 'enhanced-ct-nema-ct0012-2frames.dcm' }]);
    expect(result?.kind).toBe('image');
    // web mode exits on SIGTERM only when its loop empties: a referenced worker port would hang it.
    expect(keepingAlive('MessagePort')).toBe(before);
  });
});
