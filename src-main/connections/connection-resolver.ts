import { AppError } from '../../src-shared/errors.js';
import { LOCAL_ENGINE_PROFILE, type ConnectionProfile } from '../../src-shared/profiles.js';
import { engineCredentials, type RunningEngine } from '../engine/local-engine.js';
import type { Logger } from '../logging/logger.js';
import { secretFor } from '../secrets/secret-binding.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { ServiceClient, type ServiceClientOptions } from '../service/service-client.js';
import type { TokenCache } from '../service/token-manager.js';
import type { ProfileStore } from '../settings/profile-store.js';
import {
  customConnectionName,
  customProfileId,
  isCustomProfileId,
  type ConnectionAddress,
  type CustomConnection,
} from './custom-connection.js';

export type ConnectionKind = 'local-engine' | 'remote' | 'custom';

/** A connection ready to use: the one kind of resolved connection, for the app and the command line. */
export interface ResolvedConnection {
  profileId: string;
  profileName: string;
  kind: ConnectionKind;
  /** The service address in use now (the local engine makes a new one each start). */
  baseUrl: string;
  client: ServiceClient;
}

/** Addresses and credentials of one connection: everything a ServiceClient needs, and whose they are. */
interface ConnectionCredentials extends ConnectionAddress {
  profileId: string;
  profileName: string;
  clientSecret: string;
}

export type ClientTuning = Pick<ServiceClientOptions, 'retry' | 'idleTimeoutMs'>;

/** Where connections come from. */
interface ConnectionSources {
  profiles: Pick<ProfileStore, 'get' | 'activeId'>;
  /** Client secrets; also keeps the tokens of saved connections between runs (set). */
  secrets: Pick<SecretStore, 'get' | 'set'>;
  /** The local engine, started on first use; absent where it cannot run. */
  localEngine?: () => Promise<RunningEngine>;
  /** Connections given on the command line; a submission without a profile uses the first. */
  custom?: CustomConnection[];
  tuning?: ClientTuning;
  logger: Logger;
  /** What to do when a saved connection has no secret; the app's settings by default. */
  missingSecretAction?: string;
}

const MISSING_SECRET_ACTION =
  'Open Connections, edit this connection and enter the client secret your service operator gave you, then try again.';

/**
 * Turns a saved profile into addresses and credentials: the local engine's come from the running engine
 * (started on first need), a remote profile's secret from the secret store.
 */
export async function resolveConnection(
  profile: ConnectionProfile,
  sources: Pick<ConnectionSources, 'secrets' | 'localEngine' | 'missingSecretAction'>,
): Promise<ConnectionCredentials> {
  if (profile.kind === 'local-engine') {
    if (!sources.localEngine) throw engineUnavailable();
    return {
      profileId: profile.id,
      profileName: profile.name,
      ...engineCredentials(await sources.localEngine()),
    };
  }
  // Only a secret typed for this profile's addresses as they are now (secret-binding.ts).
  const secret = secretFor(profile, await sources.secrets.get(profile.id));
  if (!secret)
    throw new AppError('auth-failed', `No client secret is stored for the connection "${profile.name}".`, {
      action: sources.missingSecretAction ?? MISSING_SECRET_ACTION,
    });
  return {
    profileId: profile.id,
    profileName: profile.name,
    baseUrl: profile.baseUrl,
    authUrl: profile.authUrl,
    audience: profile.audience,
    clientId: profile.clientId,
    clientSecret: secret,
  };
}

/**
 * One service client per connection, shared by all its jobs, so that a batch signs in once. The local
 * engine is started on first use; saved profiles take their secret from the secret store; connections
 * given on the command line carry their own.
 */
export class Connections {
  private readonly clients = new Map<string, Promise<ResolvedConnection>>();
  private readonly custom = new Map<string, CustomConnection>();

  constructor(private readonly deps: ConnectionSources) {
    for (const c of deps.custom ?? []) this.custom.set(customProfileId(c), c);
  }

  /** The id and name a new job is filed under: a command-line connection first, else the profile asked for or the active one. */
  describe(profileId: string | undefined): {
    profileId: string;
    profileName: string;
    connection?: ConnectionAddress;
  } {
    if (profileId === undefined && this.custom.size > 0) profileId = [...this.custom.keys()][0];
    const id = profileId ?? this.deps.profiles.activeId();
    const custom = this.custom.get(id);
    if (custom) {
      const { baseUrl, authUrl, audience, clientId } = custom;
      return {
        profileId: id,
        profileName: customConnectionName(custom),
        connection: { baseUrl, authUrl, audience, clientId },
      };
    }
    const profile = this.deps.profiles.get(id);
    if (!profile)
      throw new AppError('not-found', `There is no connection "${id}".`, {
        action: 'Choose a connection in the settings (or `scan2mesh profiles` on the command line).',
      });
    if (profile.kind === 'local-engine' && !this.deps.localEngine) throw engineUnavailable();
    return { profileId: profile.id, profileName: profile.name };
  }

  /** Whether this process can reach the job's service without asking anyone (resume skips the others). */
  canResolve(job: { profileId: string }): boolean {
    if (this.custom.has(job.profileId)) return true;
    if (job.profileId === LOCAL_ENGINE_PROFILE.id) return this.deps.localEngine !== undefined;
    return isCustomProfileId(job.profileId) ? false : this.deps.profiles.get(job.profileId) !== undefined;
  }

  /** The shared, signed-in client of the job's connection. */
  resolve(job: { profileId: string; connection?: ConnectionAddress }): Promise<ResolvedConnection> {
    let p = this.clients.get(job.profileId);
    if (!p) {
      p = this.open(job);
      this.clients.set(job.profileId, p);
      // A failure (no secret yet, engine did not start) is not cached: the next job asks again.
      p.catch(() => this.clients.delete(job.profileId));
    }
    return p;
  }

  /**
   * A client of its own for one call (`scan2mesh test-auth`): not shared, not signed in yet, so that the
   * caller sees the sign-in's own answer. The caller closes its client.
   */
  connect(job: { profileId: string; connection?: ConnectionAddress }): Promise<ResolvedConnection> {
    // Without the kept token: the credentials themselves are what is being tried.
    return this.build(job, false);
  }

  /** Token requests of every client so far. */
  async tokenRequests(): Promise<number> {
    let n = 0;
    for (const p of this.clients.values()) n += await p.then((c) => c.client.tokenRequests).catch(() => 0);
    return n;
  }

  async close(): Promise<void> {
    const all = [...this.clients.values()];
    this.clients.clear();
    for (const p of all) await p.then((c) => c.client.close()).catch(() => {});
  }

  /**
   * Signs in (GET /testAuth) before the connection is used: a wrong secret fails every job at once,
   * and the token is in hand before POST /job, so the moment when a crash leaves a job that may
   * exist unseen is one round trip, not two.
   */
  private async open(job: {
    profileId: string;
    connection?: ConnectionAddress;
  }): Promise<ResolvedConnection> {
    const conn = await this.build(job);
    try {
      await conn.client.testAuth();
    } catch (e) {
      conn.client.close();
      throw e;
    }
    return conn;
  }

  private async build(
    job: { profileId: string; connection?: ConnectionAddress },
    keptToken = true,
  ): Promise<ResolvedConnection> {
    const { credentials, kind } = await this.credentialsOf(job);
    const { profileId, profileName, ...account } = credentials;
    const client = new ServiceClient({
      ...account,
      ...this.deps.tuning,
      logger: this.deps.logger.child('service'),
      // A connection's token is kept in the keychain (a saved one's beside its secret), so that each
      // run of the command line reuses it (§5.5): a batch script calling \`scan2mesh submit\` per scan
      // with --client-id and SCAN2MESH_CLIENT_SECRET signs in once a day, not once a scan. Not the
      // local engine's (a new engine, a new token).
      ...(kind !== 'local-engine' && keptToken
        ? { tokenCache: keychainTokenCache(this.deps.secrets, profileId) }
        : {}),
    });
    return { profileId, profileName, kind, baseUrl: account.baseUrl, client };
  }

  private async credentialsOf(job: {
    profileId: string;
    connection?: ConnectionAddress;
  }): Promise<{ credentials: ConnectionCredentials; kind: ConnectionKind }> {
    const custom = this.custom.get(job.profileId);
    if (custom) {
      const { baseUrl, authUrl, audience, clientId, clientSecret } = custom;
      const profileName = customConnectionName(custom);
      return {
        credentials: {
          profileId: job.profileId,
          profileName,
          baseUrl,
          authUrl,
          audience,
          clientId,
          clientSecret,
        },
        kind: 'custom',
      };
    }
    if (isCustomProfileId(job.profileId)) {
      const where = job.connection ? ` (${job.connection.baseUrl}, client ${job.connection.clientId})` : '';
      throw new AppError(
        'auth-failed',
        `This job was submitted with a connection given on the command line${where}.`,
        {
          action:
            'Run `scan2mesh resume` with the same --base-url, --auth-url, --audience and --client-id, and SCAN2MESH_CLIENT_SECRET set.',
        },
      );
    }
    const profile =
      job.profileId === LOCAL_ENGINE_PROFILE.id
        ? LOCAL_ENGINE_PROFILE
        : this.deps.profiles.get(job.profileId);
    if (!profile)
      throw new AppError('not-found', 'The connection of this job was removed.', {
        action: 'Add the connection again under the same name, or remove the job and submit the scan again.',
      });
    return { credentials: await resolveConnection(profile, this.deps), kind: profile.kind };
  }
}

/** The keychain entry that keeps a saved connection's token, beside its secret (entry: its id). */
export function tokenAccount(profileId: string): string {
  return `${profileId}#token`;
}

/**
 * How long the token cache waits for the keychain. A connection given on the command line may run
 * where no keychain answers (a server whose secret comes from the environment): there the token is
 * only not kept, and the job goes on.
 */
const KEYCHAIN_WAIT_MS = 3000;

function keychainTokenCache(secrets: Pick<SecretStore, 'get' | 'set'>, profileId: string): TokenCache {
  const account = tokenAccount(profileId);
  return {
    read: () => withinKeychainWait(secrets.get(account)),
    write: (value) => withinKeychainWait(secrets.set(account, value)),
  };
}

function withinKeychainWait<T>(call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the keychain did not answer')), KEYCHAIN_WAIT_MS);
    timer.unref();
  });
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}

function engineUnavailable(): AppError {
  return new AppError('internal', 'The local engine is not available here.');
}
