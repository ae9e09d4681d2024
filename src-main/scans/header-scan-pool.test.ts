import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyFile } from './classify-file.js';
import { classifyMany } from './header-scan.js';

const FIXTURES = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'fixtures');

/** Resources that keep the event loop (and so the process) alive, by kind. */
function keepingAlive(kind: string): number {
  return process.getActiveResourcesInfo().filter((r) => r === kind).length;
}

describe('header scan pool', () => {
  it('leaves nothing holding the process open once a drop is read, even workers it never used', async () => {
    const before = keepingAlive('MessagePort');
    // One file that only dicom-parser reads (Enhanced functional groups), so a worker must: one
    // worker reads it and the pool's other worker never gets any work.
    const file = `${FIXTURES}/dicom/multiframe/enhanced-ct-nema-ct0012-2frames.dcm`;
    const [result] = await classifyMany([{ path: file, display: 'enhanced-ct-nema-ct0012-2frames.dcm' }]);
    expect(result?.kind).toBe('image');
    // web mode exits on SIGTERM only when its loop empties: a referenced worker port would hang it.
    expect(keepingAlive('MessagePort')).toBe(before);
  });
});

describe('header scan', () => {
  const phantom = readdirSync(`${FIXTURES}/dicom/ct-head-phantom-1mm`)
    .sort()
    .map((f) => `${FIXTURES}/dicom/ct-head-phantom-1mm/${f}`);

  it('gives every file the result classifyFile gives it, in order, whichever thread read it', async () => {
    // Plain slices (read here), files only dicom-parser reads (a worker's), and neither DICOM nor there.
    const paths = [
      ...phantom.slice(0, 20),
      `${FIXTURES}/dicom/multiframe/enhanced-ct-nema-ct0012-2frames.dcm`,
      `${FIXTURES}/dicom/transfer-syntax/ct-512-explicit-be.dcm`,
      `${FIXTURES}/dicom/transfer-syntax/deflated-explicit-le.dcm`,
      `${FIXTURES}/dicom/bad/ct-no-preamble-no-meta.dcm`,
      `${FIXTURES}/dicom/bad/mr-small-gzipped.dcm.gz`,
      `${FIXTURES}/dicom/bad/no-such-file.dcm`,
      ...phantom.slice(20, 40),
    ];
    const items = paths.map((path) => ({ path, display: path }));
    const results = await classifyMany(items);
    expect(results).toEqual(items.map(classifyFile));
    expect(results.map((r) => r.kind)).toContain('archive');
    expect(results.map((r) => r.kind)).toContain('problem');
  });

  it('lets other calls run between slices of a large drop', async () => {
    // 2,800 headers (the phantom twenty times over): far more than one slice on any machine.
    const items = Array.from({ length: 20 }, () => phantom)
      .flat()
      .map((path, i) => ({ path, display: `${i}` }));
    let ticks = 0;
    let done = false;
    const ticker = (): void => {
      ticks++;
      if (!done) setImmediate(ticker);
    };
    setImmediate(ticker);
    const results = await classifyMany(items);
    done = true;
    expect(results).toHaveLength(items.length);
    expect(results.every((r) => r.kind === 'image')).toBe(true);
    expect(ticks).toBeGreaterThan(1);
  });
});
