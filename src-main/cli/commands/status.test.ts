import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openJobDatabase } from '../../jobs/job-db.js';
import { JobStore } from '../../jobs/job-store.js';
import { runStatus } from './status.js';
import { JOB_STATES } from '../../../src-shared/job-states.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'scan2mesh-status-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('scan2mesh status', () => {
  it('says why a stopped job was waiting when its process ended, and nothing stale once it moved on', () => {
    const db = openJobDatabase(dataDir);
    const store = new JobStore(db);
    store.insert([
      {
        id: 'a1b2c3d4-0000-4000-8000-000000000001',
        batchId: 'b1',
        profileId: 'eu',
        profileName: 'Relu EU',
        seriesId: 's1',
        scanName: 'phantom',
        seriesDescription: 'CT',
        sourceFiles: ['/scans/1.dcm'],
        meshes: [{ structures: ['mandible'], extension: '.stl' }],
        deidentify: true,
        outputDir: '/out',
        namingTemplate: '{scan}/{structures}{ext}',
      },
    ]);
    const id = 'a1b2c3d4-0000-4000-8000-000000000001';
    store.transition(id, 'preparing');
    store.transition(id, 'submitting');
    store.note(id, 'trouble', {
      state: 'submitting',
      code: 'service',
      message: 'Job creation: the service answered 429. It asks to wait 24 h before trying again.',
      waitMs: 86_400_000,
    });
    let text = '';
    runStatus({}, { dataDir, out: (t) => (text += t) });
    expect(text).toContain(
      'Creating job (stopped)  phantom (CT)  /scans/1.dcm  mandible.stl  -            was waiting: Job creation: the service answered 429. It asks to wait 24 h before trying again.',
    );
    store.transition(id, 'uploading', { remoteJobId: 'r-1' });
    db.close();
    text = '';
    runStatus({}, { dataDir, out: (t) => (text += t) });
    expect(text).not.toContain('was waiting');
  });
  it("marks a saved mesh the user has since deleted or overwritten: it is no longer the job's result", async () => {
    const db = openJobDatabase(dataDir);
    const store = new JobStore(db);
    const id = 'a1b2c3d4-0000-4000-8000-000000000002';
    store.insert([
      {
        id,
        batchId: 'b2',
        profileId: 'local',
        profileName: 'Local engine',
        seriesId: 's2',
        scanName: 'phantom',
        seriesDescription: 'CT',
        sourceFiles: ['/scans/1.dcm'],
        meshes: [
          { structures: ['skull'], extension: '.stl' },
          { structures: ['all_teeth'], extension: '.stl' },
          { structures: ['airway'], extension: '.stl' },
        ],
        deidentify: true,
        outputDir: dataDir,
        namingTemplate: '{scan}/{structures}{ext}',
      },
    ]);
    const [kept, deleted, overwritten] = ['skull.stl', 'all_teeth.stl', 'airway.stl'].map((n) =>
      join(dataDir, n),
    );
    for (const [i, path] of [kept!, deleted!, overwritten!].entries()) {
      await writeFile(path, 'solid mesh\n');
      store.saveOutput(id, i, { path, bytes: 'solid mesh\n'.length });
    }
    // Every step from preparing to done, in the order the queue takes them.
    for (const state of JOB_STATES.slice(1, JOB_STATES.indexOf('done') + 1)) store.transition(id, state);
    db.close();
    await rm(deleted!);
    await writeFile(overwritten!, 'solid another mesh\n');
    let text = '';
    runStatus({}, { dataDir, out: (t) => (text += t) });
    expect(text).toContain(`${kept}, ${deleted} (no longer there), ${overwritten} (changed since saved)`);
    text = '';
    runStatus({ json: true }, { dataDir, out: (t) => (text += t) });
    const [entry] = (JSON.parse(text) as { jobs: { outputsOnDisk: string[] }[] }).jobs;
    expect(entry!.outputsOnDisk).toEqual(['saved', 'missing', 'changed']);
  });

  // A review: nine patients' jobs from p1/scan ... p9/scan were all "scan (Series N)" in `status`.
  it('says where each scan came from, telling folders of one name apart', () => {
    const db = openJobDatabase(dataDir);
    const store = new JobStore(db);
    const job = (n: number, sourceFiles: string[]) => ({
      id: `a1b2c3d4-0000-4000-8000-00000000001${n}`,
      batchId: 'b3',
      profileId: 'local',
      profileName: 'Local engine',
      seriesId: `s${n}`,
      scanName: 'scan',
      seriesDescription: 'Series 1',
      sourceFiles,
      meshes: [{ structures: ['skull'], extension: '.stl' as const }],
      deidentify: true,
      outputDir: dataDir,
      namingTemplate: '{scan}/{structures}{ext}',
    });
    store.insert([
      job(1, ['/lab/p1/scan/IM1', '/lab/p1/scan/IM2', '/lab/p1/scan/sub/IM3']),
      job(2, ['/lab/p2/scan/IM1', '/lab/p2/scan/IM2']),
      job(3, ['/lab/archive.zip']),
    ]);
    db.close();
    let text = '';
    runStatus({ json: true }, { dataDir, out: (t) => (text += t) });
    const jobs = (JSON.parse(text) as { jobs: { source?: string }[] }).jobs;
    expect(jobs.map((j) => j.source)).toEqual(['/lab/p1/scan', '/lab/p2/scan', '/lab/archive.zip']);
    text = '';
    runStatus({}, { dataDir, out: (t) => (text += t) });
    expect(text).toMatch(/FROM/);
    for (const s of ['/lab/p1/scan', '/lab/p2/scan', '/lab/archive.zip']) expect(text).toContain(s);
  });
});
