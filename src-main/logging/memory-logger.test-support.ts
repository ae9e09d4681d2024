import type { Logger, LogLevel } from './logger.js';

export interface LogEntry {
  level: LogLevel;
  scope: string;
  msg: string;
  data: Record<string, unknown>;
}

/**
 * A logger that keeps its lines in memory, for tests that check what the code decided (a retry and
 * its delay) instead of timing it with the wall clock.
 */
export function createMemoryLogger(
  entries: LogEntry[] = [],
  scope = 'test',
): Logger & { entries: LogEntry[] } {
  const write =
    (level: LogLevel) =>
    (msg: string, data: Record<string, unknown> = {}): void => {
      entries.push({ level, scope, msg, data });
    };
  return {
    entries,
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (s) => createMemoryLogger(entries, `${scope}.${s}`),
  };
}
