import { AppError } from '../../src-shared/errors.js';
import type { ConnectionProfile } from '../../src-shared/profiles.js';
import { engineCredentials, type RunningEngine } from '../engine/local-engine.js';
import type { Logger } from '../logging/logger.js';
import { ServiceClient, type ServiceClientOptions } from './service-client.js';

/** The command line's ways of naming a connection. */
export interface ConnectionFlags {
  profile?: string;
  baseUrl?: string;
  authUrl?: string;
  audience?: string;
  clientId?: string;
}

export interface OpenConnection {
  client: ServiceClient;
  kind: 'local-engine' | 'remote';
  /** For messages: "the local engine", "profile Relu EU", or the service address. */
  label: string;
  close(): Promise<void>;
}

export interface ConnectionDeps {
  env: NodeJS.ProcessEnv;
  logger?: Logger;
  startEngine: () => Promise<RunningEngine>;
  /** Only asked for with --profile. */
  profiles: () => { get(idOrName: string): ConnectionProfile | undefined; list(): ConnectionProfile[] };
  secrets: () => { get(account: string): Promise<string | null> };
  /** Extra client settings (tests shorten waits). */
  client?: Partial<ServiceClientOptions>;
}

export const SECRET_ENV = 'SCAN2MESH_CLIENT_SECRET';

/** The flags that give a connection in full, by the field each fills. */
export const ADDRESS_FLAGS = [
  ['baseUrl', '--base-url'],
  ['authUrl', '--auth-url'],
  ['audience', '--audience'],
  ['clientId', '--client-id'],
] as const;

/**
 * Opens what the flags name: nothing = the embedded local engine; --profile = a saved connection,
 * its secret from the environment or the keychain; the four address flags = a connection given in
 * full, its secret from the environment. A secret is never a flag: flags end up in shell histories
 * and process lists.
 */
export async function openConnection(flags: ConnectionFlags, deps: ConnectionDeps): Promise<OpenConnection> {
  const given = ADDRESS_FLAGS.filter(([key]) => flags[key] !== undefined);
  if (flags.profile !== undefined && given.length > 0)
    throw usage(`Give either --profile or ${given.map(([, f]) => f).join(', ')}, not both.`);
  if (given.length > 0) {
    const missing = ADDRESS_FLAGS.filter(([key]) => !flags[key]).map(([, f]) => f);
    if (missing.length > 0) throw usage(`A connection given by address also needs ${missing.join(', ')}.`);
    const secret = deps.env[SECRET_ENV];
    if (!secret)
      throw usage(`The client secret is read from the environment variable ${SECRET_ENV}, which is not set.`);
    return remote(
      {
        baseUrl: flags.baseUrl as string,
        authUrl: flags.authUrl as string,
        audience: flags.audience as string,
        clientId: flags.clientId as string,
      },
      secret,
      flags.baseUrl as string,
      deps,
    );
  }
  if (flags.profile !== undefined) {
    const store = deps.profiles();
    const profile = store.get(flags.profile);
    if (!profile) {
      const names = store.list().map((p) => `"${p.name}"`);
      throw usage(`No connection profile named "${flags.profile}". Known: ${names.join(', ') || 'none'}.`);
    }
    if (profile.kind === 'local-engine') return local(deps);
    const secret = deps.env[SECRET_ENV] || (await deps.secrets().get(profile.id));
    if (!secret)
      throw new AppError('auth-failed', `No client secret is stored for the connection "${profile.name}".`, {
        action: `Save it in the app's connection settings, or set ${SECRET_ENV}.`,
      });
    return remote(profile, secret, `profile "${profile.name}" (${profile.baseUrl})`, deps);
  }
  return local(deps);
}

function remote(
  p: Pick<ConnectionProfile, 'baseUrl' | 'authUrl' | 'audience' | 'clientId'>,
  clientSecret: string,
  label: string,
  deps: ConnectionDeps,
): OpenConnection {
  const client = new ServiceClient({
    baseUrl: p.baseUrl,
    authUrl: p.authUrl,
    audience: p.audience,
    clientId: p.clientId,
    clientSecret,
    ...(deps.logger ? { logger: deps.logger.child('service') } : {}),
    ...deps.client,
  });
  return {
    client,
    kind: 'remote',
    label,
    close: () => {
      client.close();
      return Promise.resolve();
    },
  };
}

async function local(deps: ConnectionDeps): Promise<OpenConnection> {
  const engine = await deps.startEngine();
  const client = new ServiceClient({
    ...engineCredentials(engine),
    // Local processing ends in seconds to minutes: poll often, up to every 5 s.
    poll: { initialMs: 500, maxMs: 5_000 },
    ...(deps.logger ? { logger: deps.logger.child('service') } : {}),
    ...deps.client,
  });
  return {
    client,
    kind: 'local-engine',
    label: 'the local engine',
    close: async () => {
      client.close();
      await engine.close();
    },
  };
}

function usage(message: string): AppError {
  return new AppError('bad-input', message, {
    action: 'Run the command with --help to see the connection options.',
  });
}
