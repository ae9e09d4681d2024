import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openJobDatabase } from '../../jobs/job-db.js';
import { JobStore } from '../../jobs/job-store.js';
import { runStatus } from './status.js';

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
      'Creating job (stopped)  phantom (CT)  mandible.stl  -            was waiting: Job creation: the service answered 429. It asks to wait 24 h before trying again.',
    );
    store.transition(id, 'uploading', { remoteJobId: 'r-1' });
    db.close();
    text = '';
    runStatus({}, { dataDir, out: (t) => (text += t) });
    expect(text).not.toContain('was waiting');
  });
});
