import type { Command } from 'commander';
import { registerWeb } from './web-command.js';
import { registerInspect } from './inspect.js';
import { registerSubmit } from './submit-command.js';
import { registerTestAuth } from './test-auth-command.js';
import { registerEngine } from './engine-command.js';
import { registerStatus } from './status-command.js';
import { registerResume } from './resume-command.js';
import { registerRetry } from './retry-command.js';
import { registerCancel } from './cancel-command.js';
import { registerRemove } from './remove-command.js';
import { registerPrune } from './prune-command.js';

/**
 * Every command with its full definition, loaded eagerly: catalog.test.ts checks the lazy catalog
 * (catalog.ts, what the CLI uses) against it. One line per command.
 */
export const COMMANDS: ((program: Command) => void)[] = [
  registerWeb,
  registerInspect,
  registerSubmit,
  registerTestAuth,
  registerEngine,
  registerStatus,
  registerResume,
  registerRetry,
  registerCancel,
  registerRemove,
  registerPrune,
];
