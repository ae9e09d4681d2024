import type { Command } from 'commander';
import { registerWeb } from './web.js';
import { registerInspect } from './inspect.js';
import { registerSubmit } from './submit.js';
import { registerTestAuth } from './test-auth.js';
import { registerEngine } from './engine.js';
import { registerStatus } from './status.js';
import { registerResume } from './resume.js';
import { registerRetry } from './retry.js';
import { registerRemove } from './remove.js';
import { registerPrune } from './prune.js';

/** Each command module adds itself to the program. One line per command. */
export const COMMANDS: ((program: Command) => void)[] = [
  registerWeb,
  registerInspect,
  registerSubmit,
  registerTestAuth,
  registerEngine,
  registerStatus,
  registerResume,
  registerRetry,
  registerRemove,
  registerPrune,
];
