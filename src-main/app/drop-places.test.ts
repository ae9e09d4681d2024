import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { droppedPathRefusal } from './drop-places.js';

const same = (p: string): string => p;
const linux = { home: '/home/ana', platform: 'linux' as const, real: same };

describe('droppedPathRefusal', () => {
  it("grants the user's folders, temporary folders and mounted drives", () => {
    for (const ok of [
      '/home/ana/scans/patient-1',
      '/home/ana/Downloads/ct.zip',
      '/tmp/export',
      '/media/ana/CDROM/DICOM',
      '/run/media/ana/USB/IMG001',
      '/mnt/pacs/study',
      '/srv/lab/incoming/ct-2031',
      '/data/scans',
    ])
      expect(droppedPathRefusal(ok, linux), ok).toBeUndefined();
  });

  it('refuses system folders, hidden folders of the home folder, the home folder and the whole disk', () => {
    const cases: [string, string][] = [
      ['/etc/shadow', 'folder of the system (/etc/shadow)'],
      ['/proc/self/environ', 'folder of the system'],
      ['/run/user/1000/keyring', 'folder of the system'],
      ['/root/scan', 'folder of the system'],
      ['/usr/share/doc', 'folder of the system'],
      ['/var/lib/secrets', 'folder of the system'],
      ['/home/ana/.ssh/id_ed25519', 'in .ssh, a hidden folder'],
      ['/home/ana/.local/share/keyrings', 'in .local, a hidden folder'],
      ['/home/ana', 'your whole home folder'],
      ['/', 'a whole drive'],
    ];
    for (const [path, words] of cases) expect(droppedPathRefusal(path, linux), path).toContain(words);
  });

  it('judges the real place a link leads to', () => {
    const dir = mkdtempSync(join(tmpdir(), 's2m-drop-'));
    try {
      const link = join(dir, 'looks-like-a-scan');
      symlinkSync('/etc', link);
      expect(droppedPathRefusal(link, { home: '/home/ana', platform: 'linux' })).toContain(
        'folder of the system (/etc)',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('knows the places of macOS and Windows', () => {
    const mac = { home: '/Users/ana', platform: 'darwin' as const, real: same };
    expect(droppedPathRefusal('/Users/ana/Library/Keychains/login', mac)).toContain('in Library');
    expect(droppedPathRefusal('/System/Library/x', mac)).toContain('folder of the system');
    expect(droppedPathRefusal('/Volumes/CD/DICOM', mac)).toBeUndefined();
    const win = { home: 'C:\\Users\\ana', platform: 'win32' as const, real: same };
    expect(droppedPathRefusal('C:\\Windows\\System32\\config', win)).toContain('folder of the system');
    expect(droppedPathRefusal('C:\\Users\\ana\\AppData\\Roaming\\x', win)).toContain('in AppData');
    expect(droppedPathRefusal('D:\\', win)).toContain('a whole drive');
    expect(droppedPathRefusal('E:\\DICOM\\IMG0001', win)).toBeUndefined();
  });
});
