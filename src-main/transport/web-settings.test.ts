import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWebServer, type RunningWebServer } from './web-server.js';
import { testCore } from '../app/core.test-support.js';
import type { Core } from '../app/core.js';
import { invoke } from './web-request.test-support.js';
import { AppSettingsStore } from '../settings/app-settings.js';
import { secretFor } from '../secrets/secret-binding.js';
import {
  ensureKeyring,
  keyringAvailable,
  NO_KEYRING_REASON,
  type PrivateKeyring,
} from '../secrets/private-keyring.test-support.js';

async function start(core: Core): Promise<RunningWebServer> {
  const dir = mkdtempSync(join(tmpdir(), 'renderer-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>scan2mesh</title>');
  return startWebServer({ core, rendererDir: dir, stagingDir: mkdtempSync(join(tmpdir(), 'stage-')) });
}

describe('web transport: the output folder changes only through the confirmed flow', () => {
  let server: RunningWebServer | undefined;
  afterEach(async () => server?.close());

  it('refuses outputDir in a settings update or a submission, and keeps the folder it had', async () => {
    const s = (server = await start(testCore()));
    const before = (await invoke(s, 'settings.get', {})).envelope.value as { outputDir: string };
    const elsewhere = join(mkdtempSync(join(tmpdir(), 'out-')), 'meshes');
    const update = await invoke(s, 'settings.update', { outputDir: elsewhere, uploads: 3 });
    expect(update.envelope).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    expect(String(update.envelope.error?.message)).toMatch(/only with "Change folder…"/);
    const submit = await invoke(s, 'jobs.submit', {
      seriesIds: ['x'],
      meshes: [{ structures: ['mandible'], extension: '.stl' }],
      deidentify: true,
      outputDir: '/etc',
    });
    expect(String(submit.envelope.error?.message)).toMatch(/only with "Change folder…"/);
    expect((await invoke(s, 'settings.get', {})).envelope.value).toEqual(before);
    // Without the confirmation that a check gave for this folder, nothing changes either.
    const unconfirmed = await invoke(s, 'settings.setOutputDir', {
      path: elsewhere,
      confirmation: 'made-up',
    });
    expect(unconfirmed.envelope).toMatchObject({
      ok: false,
      error: { message: 'This output folder was not confirmed.' },
    });
    expect(existsSync(elsewhere)).toBe(false);
    // Web mode has no folder picker.
    expect((await invoke(s, 'settings.chooseOutputDir', {})).envelope.ok).toBe(false);
  });

  it('refuses system folders, also through a link, and files', async () => {
    const s = (server = await start(testCore()));
    const tmp = mkdtempSync(join(tmpdir(), 'out-'));
    symlinkSync('/etc', join(tmp, 'innocent'));
    writeFileSync(join(tmp, 'a-file'), 'x');
    const cases: [string, RegExp][] = [
      ['/etc', /\/etc is a system folder/],
      ['/usr/local/share/meshes', /system folder/],
      ['/', /system folder/],
      [join(tmp, 'innocent', 'meshes'), /\/etc\/meshes is a system folder/],
      [join(tmp, 'a-file'), /is a file, not a folder/],
      ['relative/meshes', /not a full path/],
    ];
    for (const [path, why] of cases) {
      const r = await invoke(s, 'settings.checkOutputDir', { path });
      expect(r.envelope.ok, path).toBe(false);
      expect(String(r.envelope.error?.message), path).toMatch(why);
      expect(r.envelope.error?.action, path).toBeTruthy();
    }
  });

  it('applies a checked folder once, with its own confirmation, and creates it', async () => {
    const core = testCore();
    const s = (server = await start(core));
    const wanted = join(mkdtempSync(join(tmpdir(), 'out-')), 'meshes', 'cbct');
    const other = join(mkdtempSync(join(tmpdir(), 'out-')), 'other');
    const check = await invoke(s, 'settings.checkOutputDir', { path: wanted });
    expect(check.envelope).toMatchObject({ ok: true, value: { path: wanted, exists: false } });
    const { confirmation } = check.envelope.value as { confirmation: string };
    // Checking creates nothing; the confirmation is for this folder only.
    expect(existsSync(wanted)).toBe(false);
    const swapped = await invoke(s, 'settings.setOutputDir', { path: other, confirmation });
    expect(swapped.envelope.ok).toBe(false);
    // A confirmation is spent by any use, so the right folder needs a fresh check.
    expect((await invoke(s, 'settings.setOutputDir', { path: wanted, confirmation })).envelope.ok).toBe(
      false,
    );
    const again = (await invoke(s, 'settings.checkOutputDir', { path: wanted })).envelope.value as {
      confirmation: string;
    };
    const set = await invoke(s, 'settings.setOutputDir', { path: wanted, confirmation: again.confirmation });
    expect(set.envelope).toMatchObject({ ok: true, value: { outputDir: wanted } });
    expect(existsSync(wanted)).toBe(true);
    // Kept in the data folder, as a restarted app reads it.
    expect(new AppSettingsStore(core.platform.dataDir).get().outputDir).toBe(wanted);
    expect(existsSync(other)).toBe(false);
  });
});

describe.skipIf(!keyringAvailable())(
  'web transport: a changed address drops the stored secret (real keychain)' +
    (keyringAvailable() ? '' : NO_KEYRING_REASON),
  () => {
    let keyring: PrivateKeyring;
    let server: RunningWebServer | undefined;
    beforeAll(() => {
      keyring = ensureKeyring();
    });
    afterEach(async () => server?.close());
    afterAll(() => keyring?.stop());

    const profile = {
      name: 'Relu EU 24.06',
      baseUrl: 'https://eu.virtualpatientengine.com/24.06',
      authUrl: 'https://vpengine.eu.auth0.com',
      audience: 'virtualpatientengine.com',
      clientId: 'abc',
    };

    it('keeps the secret for a new name, deletes it for a new sign-in address, service address or client id', async () => {
      const core = testCore();
      const s = (server = await start(core));
      const first = await invoke(s, 'profiles.save', { profile, clientSecret: 'typed-for-auth0' });
      const id = (first.envelope.value as { id: string; secretStored: boolean }).id;
      expect(first.envelope.value).toMatchObject({ secretStored: true });

      const renamed = await invoke(s, 'profiles.save', { profile: { ...profile, id, name: 'Relu EU' } });
      expect(renamed.envelope.value).toMatchObject({ secretStored: true });
      // Kept with the addresses it was typed for (secret-binding.ts).
      expect(secretFor(profile, await core.platform.secrets.get(id))).toBe('typed-for-auth0');

      // A compromised page pointing the sign-in at its own host gets a profile without a secret.
      const moved = await invoke(s, 'profiles.save', {
        profile: { ...profile, id, authUrl: 'https://attacker.example' },
      });
      expect(moved.envelope.value).toMatchObject({
        secretStored: false,
        authUrl: 'https://attacker.example',
      });
      expect(await core.platform.secrets.get(id)).toBeNull();
      expect(moved.text).not.toContain('typed-for-auth0');

      // A new secret typed with the change is the one kept.
      const back = await invoke(s, 'profiles.save', {
        profile: { ...profile, id },
        clientSecret: 'typed-again',
      });
      expect(back.envelope.value).toMatchObject({ secretStored: true });
      expect(secretFor(profile, await core.platform.secrets.get(id))).toBe('typed-again');

      for (const change of [
        { baseUrl: 'https://us.virtualpatientengine.com/24.06' },
        { clientId: 'other' },
      ]) {
        await core.platform.secrets.set(id, 'typed-again');
        const r = await invoke(s, 'profiles.save', { profile: { ...profile, id, ...change } });
        expect(r.envelope.value, JSON.stringify(change)).toMatchObject({ secretStored: false });
        expect(await core.platform.secrets.has(id)).toBe(false);
      }
      await core.platform.secrets.delete(id);
    });
  },
);
