import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createKeytarSecretStore, type SecretStore } from '../secrets/secret-store.js';
import { createCore, type Core } from './core.js';
import { silentLogger } from '../logging/logger.js';

/** Where a test core says a granted file is: no transport serves it, so any address that names the grant. */
export const testFileUrl = (grantId: string): string => `test://files/${grantId}`;

/**
 * A core on a fresh data folder. Its secrets go to the real keychain under a service name of its own,
 * so tests never touch the user's entries; tests that store secrets start a private keyring first.
 */
export function testCore(
  secrets: SecretStore = createKeytarSecretStore(`scan2mesh-test-${randomUUID()}`),
): Core {
  const dataDir = mkdtempSync(join(tmpdir(), 'scan2mesh-core-'));
  return createCore({ transport: 'web', dataDir, secrets }, { logger: silentLogger, fileUrl: testFileUrl });
}
