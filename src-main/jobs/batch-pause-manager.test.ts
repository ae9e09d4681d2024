import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MeshChoice } from '../../src-shared/jobs.js';
import type { RunningEngine } from '../engine/local-engine.js';
import { startTestEngine } from '../service/test-engine.test-support.js';
import { DICOM, harness, type Harness } from './jobs.test-support.js';

const MESHES: MeshChoice[] = [{ structures: ['mandible'], extension: '.stl' }];

let engine: RunningEngine;
let h: Harness;
let seriesIds: string[];

describe('pausing one batch', () => {
  beforeEach(async () => {
    ({ engine } = await startTestEngine({ processingDelayMs: 50, stepMs: 5 }));
    h = await harness(engine);
    const r = await h.scans.intake([join(DICOM, 'dicomdir'), join(DICOM, 'multiframe')]);
    seriesIds = r.series
      .filter((s) => s.modality === 'CT' && !s.problems.some((p) => p.severity === 'error'))
      .map((s) => s.id);
  });

  afterEach(async () => {
    await h.close();
    await engine.close();
  });

  it('holds its waiting jobs, says so, lets another batch run, and goes on when resumed', async () => {
    await h.manager.close();
    const m = await h.open({ limits: { uploads: 1, downloads: 1 } });
    const held = await m.submit({ seriesIds, meshes: MESHES, deidentify: false, outputDir: h.outDir });
    const batchId = held[0]!.batchId!;
    m.pauseBatch(batchId);
    const other = await m.submit({
      seriesIds: seriesIds.slice(0, 1),
      meshes: MESHES,
      deidentify: false,
      outputDir: h.outDir,
    });
    const [done] = await m.waitFor([other[0]!.id]);
    expect(done?.state).toBe('done');
    // The other batch went through while this one waited, each job still queued and saying why.
    for (const j of held) {
      const v = m.get(j.id)!;
      expect(v.state).toBe('queued');
      expect(v.batchPaused).toBe(true);
      expect(v.progress.stage).toBe('paused');
    }
    m.resumeBatch(batchId);
    const after = await m.waitFor(held.map((j) => j.id));
    expect(after.every((v) => v.state === 'done' && v.batchPaused === undefined)).toBe(true);
  });

  // A review: a paused batch started by itself once web mode was restarted after a crash.
  it('stays paused, and the queue too, when the app is started again', async () => {
    await h.manager.close();
    const m = await h.open({ keepPauses: true });
    m.pause();
    const held = await m.submit({ seriesIds, meshes: MESHES, deidentify: false, outputDir: h.outDir });
    const batchId = held[0]!.batchId!;
    m.pauseBatch(batchId);
    await m.close();
    // A command's queue on the same folder is not held by the app's pauses.
    const command = await h.open();
    expect(command.isPaused()).toBe(false);
    await command.close();
    const again = await h.open({ keepPauses: true });
    expect(again.isPaused()).toBe(true);
    // The queue resumed, the batch is still held.
    again.resume();
    await again.resumeUnfinished();
    for (const j of held) {
      await expect.poll(() => again.get(j.id)?.progress.stage).toBe('paused');
      expect(again.get(j.id)).toMatchObject({ state: 'queued', batchPaused: true });
    }
    again.resumeBatch(batchId);
    const after = await again.waitFor(held.map((j) => j.id));
    expect(after.every((v) => v.state === 'done')).toBe(true);
    // Resumed, they are no longer kept: a third start holds nothing.
    await again.close();
    const third = await h.open({ keepPauses: true });
    expect(third.isPaused()).toBe(false);
  });
});
