import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEngine } from '../engine/local-engine.js';
import { startTestEngine } from '../service/test-engine.test-support.js';
import { showProgress } from './progress-view.js';
import { DICOM, harness, type Harness } from '../jobs/jobs.test-support.js';

let engine: RunningEngine;
let h: Harness;
let seriesIds: string[];

beforeAll(async () => {
  ({ engine } = await startTestEngine({ processingDelayMs: 30, stepMs: 0 }));
  h = await harness(engine);
  const r = await h.scans.intake([join(DICOM, 'dicomdir')]);
  seriesIds = r.series
    .filter((s) => s.modality === 'CT' && !s.problems.some((p) => p.severity === 'error'))
    .map((s) => s.id);
});

afterAll(async () => {
  await h.close();
  await engine.close();
});

const submit = () =>
  h.manager.submit({
    seriesIds,
    meshes: [{ structures: ['mandible'], extension: '.stl' }],
    deidentify: false,
    outputDir: h.outDir,
  });

describe('progress of the command line', () => {
  it('prints one plain line per step of each job when the output is not a terminal', async () => {
    const lines: string[] = [];
    const jobs = await submit();
    const stop = showProgress(
      h.manager,
      jobs.map((j) => j.id),
      { write: (t) => lines.push(...t.split('\n').filter(Boolean)) },
    );
    await h.manager.waitFor(jobs.map((j) => j.id));
    await new Promise((r) => setTimeout(r, 250));
    stop();
    for (const j of jobs) {
      const mine = lines
        .filter((l) => l.includes(`${j.scanName} (${j.seriesDescription}):`))
        .map((l) => l.replace(/^\S+ .*: /, ''));
      expect(mine.map((l) => l.replace(/ \(job .*\)$/, ''))).toEqual([
        'waiting',
        'preparing scan',
        'creating job',
        'uploading',
        'starting processing',
        'processing',
        'downloading',
        'done',
      ]);
    }
    expect(lines.every((l) => /^\d\d:\d\d:\d\d /.test(l))).toBe(true);
  });

  it('redraws one line per job in place on a terminal', async () => {
    let screen = '';
    const jobs = await submit();
    const stop = showProgress(
      h.manager,
      jobs.map((j) => j.id),
      {
        write: (t: string) => (screen += t),
        isTTY: true,
        columns: 100,
        rows: 30,
      },
    );
    await h.manager.waitFor(jobs.map((j) => j.id));
    stop();
    // The cursor goes back up over the previous picture (ESC [ n A) and clears below (ESC [ 0 J).
    const ESC = '\u001b';
    expect(screen).toContain(`${ESC}[2A`);
    expect(screen).toContain(`${ESC}[0J`);
    const last = screen.split(`${ESC}[0J`).at(-1)!.trim().split('\n');
    expect(last).toHaveLength(2);
    for (const line of last) {
      expect(line.length).toBeLessThanOrEqual(99);
      expect(line).toMatch(/Done\s+\[#{16}\] 100% {2}1 mesh saved$/);
    }
  });

  it('sums up what does not fit on the terminal', async () => {
    let screen = '';
    const jobs = [...(await submit()), ...(await submit()), ...(await submit())];
    h.manager.pause();
    const stop = showProgress(
      h.manager,
      jobs.map((j) => j.id),
      { write: (t: string) => (screen += t), isTTY: true, columns: 80, rows: 5 },
    );
    stop();
    h.manager.resume();
    await h.manager.waitFor(jobs.map((j) => j.id));
    expect(screen).toMatch(/… \d waiting, \d done, 0 failed or canceled/);
  });

  it('prints why a step waits and until when, naming the day when it is not today', async () => {
    // The service asks for a day's pause at job creation (service-notes.md: expect 429, Retry-After one day).
    engine.setFaults({ status429: { count: 1, retryAfterSeconds: 86400, on: ['job'] } });
    const lines: string[] = [];
    const ids = (await submit()).map((j) => j.id);
    await new Promise<void>((resolve) => {
      const stop = showProgress(h.manager, ids, {
        write: (t) => {
          lines.push(...t.split('\n').filter(Boolean));
          if (lines.some((l) => l.includes('Trying again'))) {
            resolve();
            queueMicrotask(stop);
          }
        },
      });
    });
    for (const id of ids) if (h.manager.get(id)?.state !== 'done') h.manager.cancel(id);
    await h.manager.waitFor(ids);
    engine.setFaults({});
    const trouble = lines.find((l) => l.includes('Trying again'))!;
    const tomorrow = new Date(Date.now() + 86_400_000)
      .toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short' })
      .replace(',', '');
    expect(trouble).toMatch(/answered 429.*It asks to wait 24 h before trying again\./);
    expect(trouble).toContain(`Trying again on ${tomorrow} at `);
    expect(trouble).toMatch(/\(in 24 h\) \(Ctrl\+C stops waiting; `scan2mesh resume` goes on later\)\.$/);
  });
});
