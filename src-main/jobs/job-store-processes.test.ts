import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openJobDatabase, type Db } from './job-db.js';
import { JobStore, type NewJob } from './job-store.js';

/**
 * The job database shared by processes (the app, web mode, several `scan2mesh submit` on one data
 * folder): a write of one waits for the other's instead of failing "database is locked". Real Node
 * processes (through tsx, as the sources are TypeScript) on one database file.
 */

let dir: string;
let db: Db;
let store: JobStore;
let script: string;

const job = (id: string): NewJob => ({
  id,
  profileId: 'local-engine',
  profileName: 'Local engine',
  seriesId: `s-${id}`,
  scanName: 'scan',
  seriesDescription: 'CBCT',
  sourceFiles: [],
  meshes: [{ structures: ['mandible'], extension: '.stl' }],
  deidentify: false,
  outputDir: '/out',
  namingTemplate: '{scan}/{structures}{ext}',
});

/**
 * The child's two roles. "hold": takes the write lock (BEGIN IMMEDIATE, one write), says "held", and
 * commits once the file `go` exists (the parent makes it just before its own write), a moment later,
 * so that the parent's write meets the lock. "work": waits for `go`, then submits jobs and moves each
 * through its states as the runner does, in every kind of write the store has; says "ok" or the error.
 */
function childSource(): string {
  const module = (name: string): string => JSON.stringify(join(import.meta.dirname, name));
  return `import { existsSync } from 'node:fs';
import { openJobDatabase } from ${module('job-db.ts')};
import { JobStore } from ${module('job-store.ts')};
const [role, dataDir, go, name, count] = process.argv.slice(2);
const db = openJobDatabase(dataDir);
const whenGo = () => new Promise((resolve) => {
  const t = setInterval(() => existsSync(go) && (clearInterval(t), resolve()), 2);
});
if (role === 'hold') {
  db.prepare('BEGIN IMMEDIATE').run();
  db.prepare('UPDATE jobs SET priority = priority + 1').run();
  process.stdout.write('held\\n');
  await whenGo();
  await new Promise((r) => setTimeout(r, 100));
  db.prepare('COMMIT').run();
  db.close();
} else {
  const store = new JobStore(db);
  await whenGo();
  try {
    for (let i = 0; i < Number(count); i++) {
      const id = name + '-' + i;
      store.insert([{ id, profileId: 'p', profileName: 'p', seriesId: id, scanName: 'scan',
        seriesDescription: 'CBCT', sourceFiles: [], meshes: [{ structures: ['mandible'], extension: '.stl' }],
        deidentify: false, outputDir: '/out', namingTemplate: '{scan}' }]);
      store.together(() => {
        store.list();
        store.claim(id, name, process.pid, 60000);
      });
      store.transition(id, 'preparing');
      store.update(id, { priority: i });
      store.transition(id, 'submitting', { createSentAt: new Date().toISOString() }, undefined, { durable: true });
      store.transition(id, 'uploading', { remoteJobId: id, createSentAt: null }, undefined, {
        inputs: [{ name: 'cbct', patch: { uploadUrl: 'http://127.0.0.1:9/u?X-Signature=s', notifyUrl: 'http://127.0.0.1:9/n' } }],
      });
      await Promise.all([store.transitionSoon(id, 'notifying'), store.transitionSoon(id, 'notifying', {}, { n: 1 })]);
      store.transition(id, 'processing');
      store.updateProgress(id, { fraction: 0.5 });
      store.note(id, 'trouble', { n: i });
      store.transition(id, 'downloading');
      store.saveOutput(id, 0, { path: '/out/' + id + '.stl', bytes: 1 });
      store.transition(id, 'done');
      store.release(name, id);
      // A turn of the event loop between jobs, as a real run has: the others get in between.
      await new Promise((r) => setImmediate(r));
    }
    process.stdout.write('ok\\n');
  } catch (e) {
    process.stdout.write('failed: ' + e.message + '\\n');
  }
  store.close();
}
`;
}

interface Child {
  child: ChildProcess;
  /** Everything it printed, once it has ended. */
  ended: Promise<string>;
  /** Resolves when it has printed `line`. */
  said(line: string): Promise<void>;
}

function start(args: string[]): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiting: { line: string; resolve: () => void }[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (const w of waiting) if (out.split('\n').includes(w.line)) w.resolve();
  });
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const ended = new Promise<string>((resolve) =>
    child.once('close', (code) => resolve(code === 0 ? out : `${out}exit ${code}: ${err}`)),
  );
  return {
    child,
    ended,
    said: (line) =>
      new Promise<void>((resolve, reject) => {
        waiting.push({ line, resolve });
        void ended.then((all) => reject(new Error(`the child ended without saying "${line}": ${all}`)));
      }),
  };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-store-processes-'));
  script = join(dir, 'child.mts');
  writeFileSync(script, childSource());
  db = openJobDatabase(join(dir, 'data'));
  store = new JobStore(db);
});

afterEach(async () => {
  store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the job database shared by processes', () => {
  // Each write path that reads before it writes: a transaction begun DEFERRED failed at its first
  // write with "database is locked" while another process held the lock, whatever busy_timeout said.
  const writes: [string, (s: JobStore) => Promise<unknown>, (s: JobStore) => void][] = [
    [
      'a state change',
      async (s) => s.transition('j1', 'preparing'),
      (s) => expect(s.get('j1')?.state).toBe('preparing'),
    ],
    [
      'the state changes of one turn, written together',
      (s) => Promise.all([s.transitionSoon('j1', 'preparing'), s.transitionSoon('j2', 'canceled')]),
      (s) => expect([s.get('j1')?.state, s.get('j2')?.state]).toEqual(['preparing', 'canceled']),
    ],
    [
      'writes grouped with together() that read first',
      async (s) =>
        s.together(() => {
          s.list();
          s.claim('j1', 'me', process.pid, 60_000);
        }),
      (s) => expect(s.get('j1')?.owner).toBe('me'),
    ],
  ];

  it.each(writes)(
    '%s waits for the write another process holds, then is written',
    async (_, write, check) => {
      store.insert([job('j1'), job('j2')]);
      store.list();
      const go = join(dir, 'go');
      const holder = start(['hold', join(dir, 'data'), go]);
      await holder.said('held');
      writeFileSync(go, '');
      await write(store);
      expect(await holder.ended).toBe('held\n');
      // Both writes are there: the holder's (priority + 1 on each job) and ours.
      expect(store.list().map((j) => j.priority)).toEqual([1, 1]);
      check(store);
    },
  );

  it('several processes submitting and moving jobs at once: none fails, every write is there', async () => {
    const go = join(dir, 'go');
    const names = ['a', 'b', 'c', 'd'];
    const count = 15;
    const children = names.map((n) => start(['work', join(dir, 'data'), go, n, String(count)]));
    writeFileSync(go, '');
    expect(await Promise.all(children.map((c) => c.ended))).toEqual(names.map(() => 'ok\n'));
    const jobs = store.list();
    expect(jobs).toHaveLength(names.length * count);
    expect(jobs.every((j) => j.state === 'done' && j.outputs[0]?.status === 'saved')).toBe(true);
    for (const j of jobs) expect(store.events(j.id).filter((e) => e.kind === 'state')).toHaveLength(8);
  }, 120_000);
});
