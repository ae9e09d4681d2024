import type { Command } from 'commander';
import { registerWeb } from './web.js';

/** Each command module adds itself to the program. One line per command. */
export const COMMANDS: ((program: Command) => void)[] = [registerWeb];
