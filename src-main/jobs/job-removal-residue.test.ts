// A removed job leaves nothing of its patient in the job list's files: not in the database's free
// pages, nor in its write-ahead log (a review found the series description and file paths of a
// removed job readable in jobs.sqlite).
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOB_DB_FILE, openJobDatabase, type Db } from './job-db.js';
import { JobStore, type NewJob } from './job-store.js';

let dir: string;
let db: Db;

const job = (id: string, who: string): NewJob => ({
  id,
  batchId: 'b1',
  profileId: 'local-engine',
  profileName: 'Local engine',
  seriesId: `s-${id}`,
  scanName: `${who} scan`,
  seriesDescription: `CT HEAD ${who}`,
  sourceFiles: [`/scans/${who}/${who}_0001.dcm`],
  meshes: [{ structures: ['skull'], extension: '.stl' }],
  deidentify: false,
  outputDir: '/out',
  namingTemplate: '{patient}/{structures}{ext}',
  patientName: `${who} PATIENT`,
});

/** Every byte of the job list's files as they are on disk now, the database open. */
function onDisk(): string {
  return ['', '-wal', '-journal']
    .map((suffix) => join(dir, `${JOB_DB_FILE}${suffix}`))
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f).toString('latin1'))
    .join('');
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-residue-'));
  db = openJobDatabase(dir);
});

afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

describe('removing a job', () => {
  it('leaves its patient name, series description and file paths nowhere in the files', () => {
    const store = new JobStore(db);
    store.insert([job('j1', 'DOEJANE'), job('j2', 'ROESAM')]);
    store.note('j1', 'trouble', { message: 'DOEJANE_0001.dcm could not be read' });
    expect(onDisk()).toContain('DOEJANE');
    store.remove('j1');
    expect(store.get('j1')).toBeUndefined();
    expect(onDisk()).not.toContain('DOEJANE');
    // The other job is untouched.
    expect(store.get('j2')?.seriesDescription).toBe('CT HEAD ROESAM');
    expect(onDisk()).toContain('ROESAM');
  });
});
