import { describe, expect, it } from 'vitest';
import { AppError } from '../../src-shared/errors.js';
import { LOCAL_ENGINE_PROFILE } from '../../src-shared/profiles.js';
import { withTempDir } from '../service/test-engine.test-support.js';
import { secretFor } from '../secrets/secret-binding.js';
import { ProfileStore } from '../settings/profile-store.js';
import {
  chooseConnection,
  namesLocalEngine,
  pickConnectionFlags,
  SECRET_ENV,
  type ChosenConnection,
  type ConnectionFlags,
} from './connection-flags.js';
import { customProfileId, isCustomProfileId } from './custom-connection.js';

const address = {
  baseUrl: 'https://eu.example/24.06',
  authUrl: 'https://idp.example',
  audience: 'a',
  clientId: 'c',
};

/** chooseConnection on a real profile store holding one remote profile, "EU". */
type Choose = (flags: ConnectionFlags, env?: NodeJS.ProcessEnv) => ChosenConnection;

async function withProfiles(run: (choose: Choose, id: string) => void): Promise<void> {
  await withTempDir(async (dir) => {
    const profiles = new ProfileStore(dir);
    const { id } = profiles.save({ name: 'EU', ...address });
    run((flags, env = {}) => chooseConnection(flags, { env, profiles }), id);
    return Promise.resolve();
  });
}

function usageError(f: () => unknown): AppError {
  let caught: unknown;
  try {
    f();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(AppError);
  expect((caught as AppError).code).toBe('bad-input');
  return caught as AppError;
}

describe('connection flags', () => {
  it('name the local engine when none is given, or a saved profile by name or id', async () => {
    await withProfiles((choose, id) => {
      expect(choose({})).toEqual({
        profileId: LOCAL_ENGINE_PROFILE.id,
        kind: 'local-engine',
        label: 'the local engine',
      });
      expect(choose({ profile: 'eu' })).toEqual({
        profileId: id,
        kind: 'remote',
        label: 'profile "EU" (https://eu.example/24.06)',
      });
      // Bound to the profile's addresses as read, as a secret in the keychain is.
      const env = choose({ profile: id }, { [SECRET_ENV]: 's' }).envSecret;
      expect(env?.account).toBe(id);
      expect(secretFor(address, env?.secret ?? null)).toBe('s');
      expect(secretFor({ ...address, baseUrl: 'https://elsewhere.example' }, env?.secret ?? null)).toBeNull();
      expect(choose({ profile: LOCAL_ENGINE_PROFILE.id }).kind).toBe('local-engine');
    });
  });

  it('give a connection in full by address, its secret only from the environment', async () => {
    await withProfiles((choose) => {
      const chosen = choose(address, { [SECRET_ENV]: 's' });
      expect(chosen).toEqual({
        profileId: customProfileId(address),
        kind: 'remote',
        label: address.baseUrl,
        custom: { ...address, clientSecret: 's' },
      });
      expect(isCustomProfileId(chosen.profileId)).toBe(true);
      // The same service and client files its jobs under the same id in every run.
      expect(customProfileId({ ...address })).toBe(chosen.profileId);
      expect(customProfileId({ ...address, clientId: 'd' })).not.toBe(chosen.profileId);
      expect(usageError(() => choose(address)).message).toMatch(
        /environment variable SCAN2MESH_CLIENT_SECRET, which is not set/,
      );
    });
  });

  it('refuse incomplete or contradictory flags and unknown profiles, in words', async () => {
    await withProfiles((choose) => {
      const env = { [SECRET_ENV]: 's' };
      expect(usageError(() => choose({ baseUrl: address.baseUrl }, env)).message).toMatch(
        /also needs --auth-url, --audience, --client-id/,
      );
      expect(usageError(() => choose({ profile: 'EU', clientId: 'x' }, env)).message).toMatch(
        /either --profile or --client-id/,
      );
      const unknown = usageError(() => choose({ profile: 'nope' }, env));
      expect(unknown.message).toBe(
        `No connection profile named "nope". Known: "${LOCAL_ENGINE_PROFILE.name}", "EU".`,
      );
      expect(unknown.action).toMatch(/--help/);
    });
  });

  it('say before any profile is read when they name the local engine, as chooseConnection decides', async () => {
    await withProfiles((choose) => {
      const env = { [SECRET_ENV]: 's' };
      const cases: ConnectionFlags[] = [{}, { profile: 'EU' }, address, { baseUrl: address.baseUrl }];
      for (const flags of cases) {
        const local = namesLocalEngine(flags);
        expect(local).toBe(Object.keys(flags).length === 0);
        if (local) expect(choose(flags, env).profileId).toBe(LOCAL_ENGINE_PROFILE.id);
        else if (flags.profile || Object.keys(flags).length === 4)
          expect(choose(flags, env).kind).toBe('remote');
      }
    });
  });

  it('are picked out of a command’s other options', () => {
    const opts = { ...address, profile: undefined, json: true, mesh: ['mandible'] } as ConnectionFlags;
    expect(pickConnectionFlags(opts)).toEqual(address);
  });
});
