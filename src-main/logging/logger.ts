import { appendFileSync, chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { redact } from './redact.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

export interface LoggerOptions {
  /** Append JSON lines here; nothing is written to a file when absent. */
  file?: string;
  level?: LogLevel;
  /** Also write to stderr (the CLI's --verbose, the web server's console). */
  stderr?: boolean;
}

/** A JSON-lines logger whose every line goes through redact(): callers cannot forget it. */
export function createLogger(opts: LoggerOptions = {}, scope = 'app'): Logger {
  const min = ORDER[opts.level ?? (process.env.SCAN2MESH_LOG_LEVEL as LogLevel | undefined) ?? 'info'] ?? 20;
  if (opts.file) makePrivate(opts.file);
  const write = (level: LogLevel, msg: string, data?: Record<string, unknown>): void => {
    if (ORDER[level] < min) return;
    const line = redact(JSON.stringify({ t: new Date().toISOString(), level, scope, msg, ...data }));
    if (opts.file) {
      try {
        appendFileSync(opts.file, line + '\n', { mode: 0o600 });
      } catch {
        // A full disk or a removed folder must not take the app down with it.
      }
    }
    if (opts.stderr) process.stderr.write(line + '\n');
  };
  return {
    debug: (m, d) => write('debug', m, d),
    info: (m, d) => write('info', m, d),
    warn: (m, d) => write('warn', m, d),
    error: (m, d) => write('error', m, d),
    child: (s) => createLogger(opts, `${scope}.${s}`),
  };
}

/**
 * Logs say which scans were worked on and when: the folder is the user's alone (0700) and each file
 * (0600), also when an older version made them readable by others.
 */
function makePrivate(file: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    chmodSync(dirname(file), 0o700);
    if (existsSync(file)) chmodSync(file, 0o600);
  } catch {
    // As for writing: logging never takes the app down.
  }
}

export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};
