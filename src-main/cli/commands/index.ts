import type { Command } from 'commander';

/** Each command module adds itself to the program. One line per command. */
export const COMMANDS: ((program: Command) => void)[] = [];
