// What a dropped folder may lead to: links are followed only to places inside the folder the user
// dropped, never to the rest of the disk; loops, pipes and devices are named; names that are not text
// and folders nested past the system's path limit are said in words.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IntakeResult } from '../../src-shared/scans.js';
import { LINK_DANGLING, LINK_LOOP, LINK_OUTSIDE, LINK_TO_DEVICE, NOT_REGULAR } from './file-walk.js';
import { intake } from './intake.js';
import { phantomFiles, tempFolders } from './scans.test-support.js';

const { fresh } = tempFolders('s2m-intake-links-');
const posix = process.platform !== 'win32';

async function run(paths: string[]): Promise<IntakeResult> {
  return (await intake(paths, { tempDir: fresh('work') })).result;
}

/** A folder holding `n` real phantom slices (copies). */
function sliceFolder(name: string, n: number, from = 0): string {
  const dir = fresh(name);
  for (const f of phantomFiles().slice(from, from + n)) copyFileSync(f, join(dir, basename(f)));
  return dir;
}

const skippedAs = (r: IntakeResult): [string, string][] => r.skipped.map((s) => [s.path, s.reason]);

describe.skipIf(!posix)('links inside a dropped folder', () => {
  it('follows links that stay inside the folder, and counts a file reached twice once', async () => {
    const dir = sliceFolder('inside', 3);
    mkdirSync(join(dir, 'more'));
    for (const f of phantomFiles().slice(3, 5)) copyFileSync(f, join(dir, 'more', basename(f)));
    symlinkSync(join(dir, 'more'), join(dir, 'more-again'));
    symlinkSync('more', join(dir, 'relative-more'));
    const first = basename(phantomFiles()[0]!);
    symlinkSync(join(dir, first), join(dir, 'same-slice.dcm'));
    const r = await run([dir]);
    expect(r.series.map((s) => s.slices)).toEqual([5]);
    expect(r.series[0]!.problems.map((p) => p.code)).not.toContain('duplicate-files');
    expect(r.skipped).toEqual([]);
  });

  it('does not follow a link to a slice or a folder outside the dropped folder', async () => {
    const dir = sliceFolder('drop', 3);
    const elsewhere = sliceFolder('elsewhere', 2, 10);
    const stray = join(elsewhere, basename(phantomFiles()[10]!));
    symlinkSync(stray, join(dir, 'stray.dcm'));
    symlinkSync(elsewhere, join(dir, 'elsewhere-link'));
    // Climbs out by a relative path, through the dropped folder's parent.
    symlinkSync(join('..', basename(elsewhere)), join(dir, 'up-and-over'));
    const r = await run([dir]);
    // The three slices only: the stray one would have joined the series and been sent.
    expect(r.series.map((s) => s.slices)).toEqual([3]);
    expect(skippedAs(r)).toEqual([
      [join(dir, 'elsewhere-link'), LINK_OUTSIDE],
      [join(dir, 'stray.dcm'), LINK_OUTSIDE],
      [join(dir, 'up-and-over'), LINK_OUTSIDE],
    ]);
    expect(LINK_OUTSIDE).toBe(
      'a link to somewhere outside the folder you dropped; drop that place itself if you meant it',
    );
  });

  it('never walks the disk through a link to / or to /proc/self', async () => {
    const dir = sliceFolder('root-link', 1);
    symlinkSync('/', join(dir, 'disc'));
    if (process.platform === 'linux') symlinkSync('/proc/self', join(dir, 'me'));
    const r = await run([dir]);
    expect(r.series.map((s) => s.fileCount)).toEqual([1]);
    expect(r.skipped.map((s) => s.reason)).toEqual(
      r.skipped.map(() => LINK_OUTSIDE), // one line per link, nothing from behind them
    );
    expect(r.skipped.map((s) => basename(s.path)).sort()).toEqual(
      process.platform === 'linux' ? ['disc', 'me'] : ['disc'],
    );
  });

  it('follows a link the user dropped, and links inside where it leads', async () => {
    const real = sliceFolder('real', 2);
    mkdirSync(join(real, 'sub'));
    copyFileSync(phantomFiles()[2]!, join(real, 'sub', 'c.dcm'));
    symlinkSync(join(real, 'sub'), join(real, 'sub-link'));
    const dropped = join(fresh('shortcut'), 'scan');
    symlinkSync(real, dropped);
    const r = await run([dropped]);
    expect(r.series.map((s) => s.slices)).toEqual([3]);
    expect(r.skipped).toEqual([]);
  });

  it('says a loop of links is a loop, and a broken link is broken', async () => {
    const dir = sliceFolder('loops', 1);
    symlinkSync('loop-b', join(dir, 'loop-a'));
    symlinkSync('loop-a', join(dir, 'loop-b'));
    symlinkSync('nowhere', join(dir, 'broken'));
    mkdirSync(join(dir, 'a'));
    symlinkSync('..', join(dir, 'a', 'up')); // back to the dropped folder: listed once, no loop walked
    const r = await run([dir]);
    expect(r.series.map((s) => s.fileCount)).toEqual([1]);
    expect(skippedAs(r)).toEqual([
      [join(dir, 'broken'), LINK_DANGLING],
      [join(dir, 'loop-a'), LINK_LOOP],
      [join(dir, 'loop-b'), LINK_LOOP],
    ]);
  });

  it('names links to a device or a pipe, and pipes, among the skipped files', async () => {
    const dir = sliceFolder('devices', 1);
    symlinkSync('/dev/zero', join(dir, 'zero-link'));
    symlinkSync('/dev/urandom', join(dir, 'urandom.dcm'));
    const fifo = spawnSync('mkfifo', [join(dir, 'pipe')]).status === 0;
    if (fifo) symlinkSync('pipe', join(dir, 'pipe-link.dcm'));
    const r = await run([dir]);
    expect(r.series.map((s) => s.fileCount)).toEqual([1]);
    expect(skippedAs(r)).toEqual([
      ...(fifo
        ? [
            [join(dir, 'pipe'), NOT_REGULAR],
            [join(dir, 'pipe-link.dcm'), LINK_TO_DEVICE],
          ]
        : []),
      [join(dir, 'urandom.dcm'), LINK_TO_DEVICE],
      [join(dir, 'zero-link'), LINK_TO_DEVICE],
    ]);
  });
});

describe.skipIf(process.platform !== 'linux')('names and paths the system cannot take as text', () => {
  it('says a file whose name is not UTF-8 must be renamed, and reads the rest', async () => {
    const dir = sliceFolder('bad-name', 2);
    // slice\xff.dcm: a byte that is not UTF-8, as a disc written on an old system may carry.
    const name = Buffer.concat([Buffer.from(`${dir}/slice`), Buffer.from([0xff]), Buffer.from('.dcm')]);
    copyFileSync(phantomFiles()[5]!, name);
    const r = await run([dir]);
    expect(r.series.map((s) => s.slices)).toEqual([2]);
    const problem = r.problems.find((p) => p.code === 'unreadable');
    expect(problem?.message).toBe(
      'slice\uFFFD.dcm cannot be opened: its name is not valid text (UTF-8). Rename it and add it again.',
    );
    // A name that holds U+FFFD itself is valid text, and opens.
    writeFileSync(join(dir, 'note\uFFFD.txt'), 'a note');
    const again = await run([dir]);
    expect(again.skipped.map((s) => basename(s.path))).toEqual(['note\uFFFD.txt']);
  });

  it('says in words that folders nest past the path limit', async () => {
    const dir = fresh('deep');
    // 20 folders of 240-character names, one in another: a path of over 4,800 characters, past Linux's
    // 4,096. No path to the bottom can be given, so 15 levels are made in one go, and 5 more made
    // beside them are moved into the deepest (by a path still short enough).
    const name = 'd'.repeat(240);
    const levels = (n: number): string[] => Array<string>(n).fill(name);
    const deepest = join(dir, 'top', ...levels(15));
    mkdirSync(deepest, { recursive: true });
    mkdirSync(join(dir, 'bottom', ...levels(5)), { recursive: true });
    renameSync(join(dir, 'bottom', name), join(deepest, name));
    try {
      const r = await run([join(dir, 'top')]);
      const problem = r.problems.find((p) => p.code === 'unreadable');
      expect(problem?.message).toBe(
        `${name} cannot be read: it sits in so many folders, one inside another, that its full path is longer than the system allows. Move the scan's folder nearer the top of the disk.`,
      );
    } finally {
      // rm goes down by relative steps; Node's recursive removal would itself meet the path limit.
      spawnSync('rm', ['-rf', 'top', 'bottom'], { cwd: dir });
    }
  });
});
