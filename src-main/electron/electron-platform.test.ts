import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { isAppError } from '../../src-shared/errors.js';

// Plain objects stand in for Electron's Notification, shell and BrowserWindow: the Platform seam is
// what the job manager calls for notifications and taskbar progress.
const fake = vi.hoisted(() => ({
  supported: true,
  shown: [] as { title: string; body: string }[],
  revealed: [] as string[],
}));
vi.mock('electron', () => ({
  Notification: class {
    static isSupported = () => fake.supported;
    constructor(private readonly options: { title: string; body: string }) {}
    show() {
      fake.shown.push({ title: this.options.title, body: this.options.body });
    }
  },
  shell: { showItemInFolder: (path: string) => fake.revealed.push(path) },
  dialog: {},
}));

const { electronPlatform } = await import('./electron-platform.js');

function fakeWindow() {
  const bars: number[] = [];
  return { bars, setProgressBar: (n: number) => bars.push(n) };
}

describe('the Electron platform', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scan2mesh-platform-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('shows a desktop notification where the system supports them, and stays quiet elsewhere', () => {
    const platform = electronPlatform(dir, () => null);
    platform.notify?.('A scan2mesh job failed', 'jaw-01: the service refused the scan');
    expect(fake.shown).toEqual([
      { title: 'A scan2mesh job failed', body: 'jaw-01: the service refused the scan' },
    ]);
    fake.supported = false;
    platform.notify?.('Batch finished', '3 jobs done');
    expect(fake.shown).toHaveLength(1);
    fake.supported = true;
  });

  it('puts the queue’s progress on the taskbar, clamped to 0..1, and clears it with null', () => {
    const win = fakeWindow();
    const platform = electronPlatform(dir, () => win as never);
    for (const f of [0, 0.25, 1, 1.5, -0.2, null]) platform.setProgress?.(f);
    expect(win.bars).toEqual([0, 0.25, 1, 1, 0, -1]);
    expect(() => electronPlatform(dir, () => null).setProgress?.(0.5)).not.toThrow();
  });

  it('reveals a file that exists, and says so in words when it is gone', async () => {
    const platform = electronPlatform(dir, () => null);
    const mesh = join(dir, 'mandible.stl');
    writeFileSync(mesh, 'solid m\nendsolid m\n');
    await platform.revealInFolder?.(mesh);
    expect(fake.revealed).toEqual([mesh]);
    const missing = await platform.revealInFolder?.(join(dir, 'gone.stl')).catch((e: unknown) => e);
    expect(isAppError(missing) && missing.code).toBe('not-found');
    expect(fake.revealed).toHaveLength(1);
  });

  it('is the Electron transport over the data folder it was given', () => {
    const platform = electronPlatform(dir, () => null);
    expect(platform.transport).toBe('electron');
    expect(platform.dataDir).toBe(dir);
  });
});
