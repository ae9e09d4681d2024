import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_NAMING_TEMPLATE } from '../../src-shared/jobs.js';
import { AppSettingsStore, defaultOutputDir } from './app-settings.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scan2mesh-settings-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('AppSettingsStore', () => {
  it('gives the defaults when nothing is stored', () => {
    const s = new AppSettingsStore(dir).get();
    expect(s).toEqual({
      outputDir: defaultOutputDir(),
      namingTemplate: DEFAULT_NAMING_TEMPLATE,
      uploads: 2,
      downloads: 2,
      deidentifyByDefault: true,
    });
  });

  it('keeps an update, and refuses a bad one with what is wrong', async () => {
    const store = new AppSettingsStore(dir);
    store.update({ uploads: 4, outputDir: join(dir, 'meshes') });
    expect(new AppSettingsStore(dir).get()).toMatchObject({ uploads: 4, outputDir: join(dir, 'meshes') });
    expect(() => store.update({ outputDir: 'relative/folder' })).toThrow(/full path/);
    expect(() => store.update({ namingTemplate: '{scan}/{ext}' })).toThrow(/must contain \{structures\}/);
    expect(() => store.update({ downloads: 0 })).toThrow();
    expect(JSON.parse(await readFile(join(dir, 'settings.json'), 'utf8')).uploads).toBe(4);
  });

  it('falls back to the default for one bad stored value and keeps the others', async () => {
    await writeFile(
      join(dir, 'settings.json'),
      JSON.stringify({ uploads: 3, downloads: 'many', namingTemplate: '../{structures}{ext}' }),
    );
    const s = new AppSettingsStore(dir).get();
    expect(s.uploads).toBe(3);
    expect(s.downloads).toBe(2);
    expect(s.namingTemplate).toBe(DEFAULT_NAMING_TEMPLATE);
  });
});
