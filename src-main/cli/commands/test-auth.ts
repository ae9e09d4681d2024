import {
  chooseConnection,
  CLI_MISSING_SECRET_ACTION,
  withEnvSecret,
  type ConnectionFlags,
} from '../../connections/connection-flags.js';
import { Connections, type ClientTuning } from '../../connections/connection-resolver.js';
import { startDefaultEngine } from '../../engine/default-engine.js';
import type { RunningEngine } from '../../engine/local-engine.js';
import type { Logger } from '../../logging/logger.js';
import { dataDir } from '../../platform/paths.js';
import { createKeytarSecretStore, type SecretStore } from '../../secrets/secret-store.js';
import { ProfileStore } from '../../settings/profile-store.js';
import { engineOnDemand } from '../engine-on-demand.js';
import { EXIT } from '../exit-codes.js';

/** What `scan2mesh test-auth` connects with. */
export interface TestAuthDeps {
  env: NodeJS.ProcessEnv;
  logger: Logger;
  startEngine: () => Promise<RunningEngine>;
  /** Only read with --profile (and for the local engine's entry). */
  profiles: () => Pick<ProfileStore, 'get' | 'list' | 'activeId'>;
  secrets: () => SecretStore;
  /** Tests shorten the client's waits. */
  client?: ClientTuning;
}

/** The real thing: the engine with real segmentation, the profile store and the keychain. */
export function testAuthDeps(logger: Logger): TestAuthDeps {
  return {
    env: process.env,
    logger,
    startEngine: () => startDefaultEngine({ logger }),
    profiles: () => new ProfileStore(dataDir(), logger),
    secrets: () => createKeytarSecretStore(),
  };
}

/** Signs in and calls /testAuth; exit 0 with the service's message, 3 when authentication fails. */
export async function runTestAuth(
  flags: ConnectionFlags,
  deps: TestAuthDeps,
  write: (text: string) => void = (t) => process.stdout.write(t),
): Promise<number> {
  const profiles = deps.profiles();
  const chosen = chooseConnection(flags, { env: deps.env, profiles });
  const engine = engineOnDemand(deps.startEngine);
  const connections = new Connections({
    profiles,
    secrets: withEnvSecret(deps.secrets(), chosen),
    localEngine: engine.get,
    ...(chosen.custom ? { custom: [chosen.custom] } : {}),
    ...(deps.client ? { tuning: deps.client } : {}),
    logger: deps.logger,
    missingSecretAction: CLI_MISSING_SECRET_ACTION,
  });
  try {
    const conn = await connections.connect({ profileId: chosen.profileId });
    try {
      const message = await conn.client.testAuth();
      write(`Connected to ${chosen.label}: ${message}\n`);
      return EXIT.ok;
    } finally {
      conn.client.close();
    }
  } finally {
    await connections.close();
    await engine.close();
  }
}
