import { createHash } from 'node:crypto';
import { AppError } from '../../src-shared/errors.js';
import { LOCAL_ENGINE_PROFILE } from '../../src-shared/profiles.js';
import { engineCredentials, type RunningEngine } from '../engine/local-engine.js';
import type { Logger } from '../logging/logger.js';
import type { SecretStore } from '../secrets/secret-store.js';
import { ServiceClient, type ServiceClientOptions } from '../service/service-client.js';
import type { ProfileStore } from '../settings/profile-store.js';
import type { StoredConnection } from './job-store.js';

/** A connection given on the command line (--base-url ... and SCAN2MESH_CLIENT_SECRET) rather than saved. */
export interface CustomConnection extends StoredConnection {
  clientSecret: string;
  /** Shown in the job list; the address's host when absent. */
  name?: string;
}

export type ConnectionKind = 'local-engine' | 'remote' | 'custom';

export interface ResolvedConnection {
  profileId: string;
  profileName: string;
  kind: ConnectionKind;
  /** The service address in use now (the local engine makes a new one each start). */
  baseUrl: string;
  client: ServiceClient;
}

export type ClientTuning = Pick<ServiceClientOptions, 'retry' | 'poll' | 'idleTimeoutMs'>;

/** The id under which a command-line connection's jobs are kept, stable for the same service and client. */
export function customProfileId(c: StoredConnection): string {
  const h = createHash('sha256')
    .update(`${c.baseUrl}\n${c.authUrl}\n${c.audience}\n${c.clientId}`)
    .digest('hex');
  return `custom:${h.slice(0, 16)}`;
}

/**
 * One service client per connection, shared by all its jobs, so that a batch signs in once. The local
 * engine is started on first use; saved profiles take their secret from the keychain.
 */
export class Connections {
  private readonly clients = new Map<string, Promise<ResolvedConnection>>();
  private readonly custom = new Map<string, CustomConnection>();

  constructor(
    private readonly deps: {
      profiles: ProfileStore;
      secrets: SecretStore;
      localEngine?: () => Promise<RunningEngine>;
      custom?: CustomConnection[];
      tuning?: ClientTuning;
      logger: Logger;
    },
  ) {
    for (const c of deps.custom ?? []) this.custom.set(customProfileId(c), c);
  }

  /** The id and name a new job is filed under: a command-line connection first, else the profile asked for or the active one. */
  describe(profileId: string | undefined): {
    profileId: string;
    profileName: string;
    connection?: StoredConnection;
  } {
    if (profileId === undefined && this.custom.size > 0) profileId = [...this.custom.keys()][0];
    const id = profileId ?? this.deps.profiles.activeId();
    const custom = this.custom.get(id);
    if (custom) {
      const { baseUrl, authUrl, audience, clientId } = custom;
      return {
        profileId: id,
        profileName: custom.name ?? hostOf(baseUrl),
        connection: { baseUrl, authUrl, audience, clientId },
      };
    }
    const profile = this.deps.profiles.get(id);
    if (!profile)
      throw new AppError('not-found', `There is no connection "${id}".`, {
        action: 'Choose a connection in the settings (or `scan2mesh profiles` on the command line).',
      });
    if (profile.kind === 'local-engine' && !this.deps.localEngine)
      throw new AppError('internal', 'The local engine is not available here.');
    return { profileId: profile.id, profileName: profile.name };
  }

  /** Whether this process can reach the job's service without asking anyone (resume skips the others). */
  canResolve(job: { profileId: string }): boolean {
    if (this.custom.has(job.profileId)) return true;
    if (job.profileId === LOCAL_ENGINE_PROFILE.id) return this.deps.localEngine !== undefined;
    return job.profileId.startsWith('custom:') ? false : this.deps.profiles.get(job.profileId) !== undefined;
  }

  resolve(job: { profileId: string; connection?: StoredConnection }): Promise<ResolvedConnection> {
    let p = this.clients.get(job.profileId);
    if (!p) {
      p = this.open(job);
      this.clients.set(job.profileId, p);
      // A failure (no secret yet, engine did not start) is not cached: the next job asks again.
      p.catch(() => this.clients.delete(job.profileId));
    }
    return p;
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
  private async open(job: { profileId: string; connection?: StoredConnection }): Promise<ResolvedConnection> {
    const conn = await this.build(job);
    try {
      await conn.client.testAuth();
    } catch (e) {
      conn.client.close();
      throw e;
    }
    return conn;
  }

  private async build(job: {
    profileId: string;
    connection?: StoredConnection;
  }): Promise<ResolvedConnection> {
    const logger = this.deps.logger.child('service');
    const tuning = this.deps.tuning ?? {};
    const custom = this.custom.get(job.profileId);
    if (custom) {
      const client = new ServiceClient({ ...custom, ...tuning, logger });
      return {
        profileId: job.profileId,
        profileName: custom.name ?? hostOf(custom.baseUrl),
        kind: 'custom',
        baseUrl: custom.baseUrl,
        client,
      };
    }
    if (job.profileId.startsWith('custom:')) {
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
    if (job.profileId === LOCAL_ENGINE_PROFILE.id) {
      if (!this.deps.localEngine) throw new AppError('internal', 'The local engine is not available here.');
      const engine = await this.deps.localEngine();
      const client = new ServiceClient({ ...engineCredentials(engine), ...tuning, logger });
      return {
        profileId: job.profileId,
        profileName: LOCAL_ENGINE_PROFILE.name,
        kind: 'local-engine',
        baseUrl: engine.baseUrl,
        client,
      };
    }
    const profile = this.deps.profiles.get(job.profileId);
    if (!profile)
      throw new AppError('not-found', 'The connection of this job was removed.', {
        action: 'Add the connection again under the same name, or remove the job and submit the scan again.',
      });
    const secret = await this.deps.secrets.get(profile.id);
    if (!secret)
      throw new AppError('auth-failed', `No client secret is stored for the connection "${profile.name}".`, {
        action: 'Enter the client secret in the connection settings, then retry the job.',
      });
    const client = new ServiceClient({
      baseUrl: profile.baseUrl,
      authUrl: profile.authUrl,
      audience: profile.audience,
      clientId: profile.clientId,
      clientSecret: secret,
      ...tuning,
      logger,
    });
    return {
      profileId: profile.id,
      profileName: profile.name,
      kind: 'remote',
      baseUrl: profile.baseUrl,
      client,
    };
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
