import { describe, expect, it } from 'vitest';
import { chownSync, mkdtempSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkOutputFolder, prepareOutputFolder } from './output-folder.js';

describe('output folder check', () => {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'home-')));

  it('expands ~ to the home folder and says whether the folder exists', () => {
    expect(checkOutputFolder('~/Documents/scan2mesh', { home })).toEqual({
      path: join(home, 'Documents', 'scan2mesh'),
      exists: false,
    });
    expect(checkOutputFolder(`${home}/`, { home })).toEqual({ path: home, exists: true });
  });

  it('refuses a folder outside the home folder that is no place for user files', () => {
    expect(() => checkOutputFolder('/scan2mesh-nowhere/meshes', { home })).toThrow(
      /outside your home folder and the places for your own files/,
    );
    expect(() => checkOutputFolder('/var/lib/scan2mesh', { home })).toThrow(/system folder/);
  });

  it('refuses a typed folder inside a hidden folder of the home folder (~/.ssh, ~/.config/autostart)', () => {
    for (const typed of ['~/.ssh', '~/.config/autostart', '~/Documents/.hidden/meshes'])
      expect(() => checkOutputFolder(typed, { home }), typed).toThrow(/inside the hidden folder \.\w+/);
    expect(checkOutputFolder('~/.ssh', { home, picked: true }).path).toBe(join(home, '.ssh'));
    expect(checkOutputFolder('~/Documents/scan.2.mesh', { home }).path).toBe(
      join(home, 'Documents', 'scan.2.mesh'),
    );
  });

  it('counts ~/Library on macOS as hidden, as the drop does (launch agents run what is put there)', () => {
    expect(() => checkOutputFolder('~/Library/LaunchAgents', { home, platform: 'darwin' })).toThrow(
      /inside the hidden folder Library/,
    );
    expect(checkOutputFolder('~/Library/LaunchAgents', { home, platform: 'linux' }).exists).toBe(false);
  });

  // Only root can give a folder to another user: the case is made only as root (as CI runs).
  it.skipIf(process.getuid?.() !== 0)(
    'refuses a folder of another user in the shared temporary folder (root only: it gives one away)',
    () => {
      const theirs = mkdtempSync(join(tmpdir(), 'theirs-'));
      chownSync(theirs, 65534, 65534);
      expect(() => checkOutputFolder(join(theirs, 'meshes'), { home })).toThrow(
        /belongs to another user of this computer/,
      );
      const mine = mkdtempSync(join(tmpdir(), 'mine-'));
      expect(checkOutputFolder(join(mine, 'meshes'), { home }).path).toBe(join(realpathSync(mine), 'meshes'));
    },
  );

  it('makes the folders it creates private to the user: meshes come from patient scans', () => {
    const made = prepareOutputFolder('~/Meshes/today', { home });
    for (const dir of [made, join(home, 'Meshes')]) expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  // Writing next to / needs root; elsewhere the folder would be refused as not writable first.
  it.skipIf(process.getuid?.() !== 0)(
    'lets the folder picker choose any folder that is not the system’s (root only: it writes next to /)',
    () => {
      expect(checkOutputFolder('/scan2mesh-nowhere/meshes', { home, picked: true }).path).toBe(
        '/scan2mesh-nowhere/meshes',
      );
      expect(() => checkOutputFolder('/usr/share/meshes', { home, picked: true })).toThrow(/system folder/);
    },
  );

  // Only root may write in /root, where root's home is: the case exists only for that user.
  it.skipIf(process.getuid?.() !== 0)(
    'counts a home folder under a system root as the user’s own (root only: /root)',
    () => {
      expect(checkOutputFolder('/root/meshes', { home: '/root' }).path).toBe('/root/meshes');
      expect(() => checkOutputFolder('/root/meshes', { home })).toThrow(/system folder/);
    },
  );
});
