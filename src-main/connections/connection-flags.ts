import { AppError } from '../../src-shared/errors.js';
import { LOCAL_ENGINE_PROFILE, type ConnectionProfile } from '../../src-shared/profiles.js';
import { boundSecret } from '../secrets/secret-binding.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { customProfileId, type CustomConnection } from './custom-connection.js';

/** The command line's ways of naming a connection. */
export interface ConnectionFlags {
  profile?: string;
  baseUrl?: string;
  authUrl?: string;
  audience?: string;
  clientId?: string;
}

/** A secret is never a flag (flags end up in shell histories and process lists): it comes from here. */
export const SECRET_ENV = 'SCAN2MESH_CLIENT_SECRET';

/** The flags that give a connection in full, by the field each fills. */
const ADDRESS_FLAGS = [
  ['baseUrl', '--base-url'],
  ['authUrl', '--auth-url'],
  ['audience', '--audience'],
  ['clientId', '--client-id'],
] as const;

const FLAG_KEYS = ['profile', 'baseUrl', 'authUrl', 'audience', 'clientId'] as const;

/** What the flags name, before anything is started or signed in to. */
export interface ChosenConnection {
  /** The profile id the connection's jobs are filed under. */
  profileId: string;
  kind: 'local-engine' | 'remote';
  /** For messages: "the local engine", 'profile "Relu EU" (…)', or the service address. */
  label: string;
  /** The connection given in full by the address flags. */
  custom?: CustomConnection;
  /** With --profile: SCAN2MESH_CLIENT_SECRET, when set, is that profile's secret. */
  envSecret?: { account: string; secret: string };
}

/** Only the connection flags of a command's options (commander gives them all in one object). */
export function pickConnectionFlags(opts: ConnectionFlags): ConnectionFlags {
  const flags: ConnectionFlags = {};
  for (const key of FLAG_KEYS) if (opts[key] !== undefined) flags[key] = opts[key];
  return flags;
}

/**
 * True when the flags name no connection, so that chooseConnection gives the embedded local engine:
 * known before the profiles are read.
 */
export function namesLocalEngine(flags: ConnectionFlags): boolean {
  return FLAG_KEYS.every((key) => flags[key] === undefined);
}

/**
 * What the flags name: nothing = the embedded local engine; --profile = a saved connection, its secret
 * from SCAN2MESH_CLIENT_SECRET or the keychain; the four address flags = a connection given in full, its
 * secret from SCAN2MESH_CLIENT_SECRET. The same rules for every command that takes connection flags.
 */
export function chooseConnection(
  flags: ConnectionFlags,
  deps: {
    env: NodeJS.ProcessEnv;
    profiles: { get(idOrName: string): ConnectionProfile | undefined; list(): ConnectionProfile[] };
  },
): ChosenConnection {
  const given = ADDRESS_FLAGS.filter(([key]) => flags[key] !== undefined);
  if (flags.profile !== undefined && given.length > 0)
    throw connectionUsage(`Give either --profile or ${given.map(([, f]) => f).join(', ')}, not both.`);
  const secret = deps.env[SECRET_ENV];
  if (given.length > 0) {
    const missing = ADDRESS_FLAGS.filter(([key]) => !flags[key]).map(([, f]) => f);
    if (missing.length > 0)
      throw connectionUsage(`A connection given by address also needs ${missing.join(', ')}.`);
    if (!secret)
      throw connectionUsage(
        `The client secret is read from the environment variable ${SECRET_ENV}, which is not set.`,
      );
    const custom: CustomConnection = {
      baseUrl: flags.baseUrl as string,
      authUrl: flags.authUrl as string,
      audience: flags.audience as string,
      clientId: flags.clientId as string,
      clientSecret: secret,
    };
    return { profileId: customProfileId(custom), kind: 'remote', label: custom.baseUrl, custom };
  }
  const local: ChosenConnection = {
    profileId: LOCAL_ENGINE_PROFILE.id,
    kind: 'local-engine',
    label: 'the local engine',
  };
  if (flags.profile === undefined) return local;
  const profile = deps.profiles.get(flags.profile);
  if (!profile) {
    const names = deps.profiles.list().map((p) => `"${p.name}"`);
    throw connectionUsage(
      `No connection profile named "${flags.profile}". Known: ${names.join(', ') || 'none'}.`,
    );
  }
  if (profile.kind === 'local-engine') return local;
  return {
    profileId: profile.id,
    kind: 'remote',
    label: `profile "${profile.name}" (${profile.baseUrl})`,
    // Bound, as a stored secret is (secret-binding.ts), to the profile's addresses as read now.
    ...(secret ? { envSecret: { account: profile.id, secret: boundSecret(profile, secret) } } : {}),
  };
}

/** The keychain, with SCAN2MESH_CLIENT_SECRET standing in for the secret of the profile the flags name. */
export function withEnvSecret(keychain: SecretStore, chosen: ChosenConnection): SecretStore {
  const env = chosen.envSecret;
  if (!env) return keychain;
  return {
    ...keychain,
    get: (account) => (account === env.account ? Promise.resolve(env.secret) : keychain.get(account)),
  };
}

/** What to do when a profile named on the command line has no secret. */
export const CLI_MISSING_SECRET_ACTION = `Save it in the app's connection settings, or set ${SECRET_ENV}.`;

/** A mistake in the connection flags: exit code 2, with where to read about them. */
function connectionUsage(message: string): AppError {
  return new AppError('bad-input', message, {
    action: 'Run the command with --help to see the connection options.',
  });
}
