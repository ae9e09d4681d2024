import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type * as Pino from 'pino';
import type { Logger as PinoLogger } from 'pino';
import { redact } from './redact.js';
import { RollingFile } from './rolling-file.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LEVELS: readonly string[] = ['debug', 'info', 'warn', 'error'] satisfies LogLevel[];

export interface Logger {
  debug(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

interface LoggerOptions {
  /**
   * Base path of the log files (e.g. logs/scan2mesh.log, written as scan2mesh.1.log, .2.log, …);
   * nothing is written to a file when absent.
   */
  file?: string;
  level?: LogLevel;
  /** Also write to stderr (the CLI's --verbose, the web server's console). */
  stderr?: boolean;
  /** Start the next file past this size (default 5 MiB). */
  maxFileBytes?: number;
  /** At most this many files are kept, the current one included (default 5). */
  keepFiles?: number;
}

/** A logger that owns files: its lines are written asynchronously, so a test or a shutdown can wait. */
interface FileLogger extends Logger {
  /** Resolves once every line logged so far is in the file. */
  flush(): Promise<void>;
  /** Flushes and closes the file; later lines are dropped. A normal exit flushes without it. */
  close(): Promise<void>;
}

/**
 * A JSON-lines logger (pino) whose every line goes through redact() as the very last step, after pino has
 * formatted it and before any byte leaves for a file or stderr: callers cannot forget it, and no field
 * pino adds escapes it. Files roll over by size (pino-roll) and are private to the user.
 */
export function createLogger(opts: LoggerOptions = {}, scope = 'app'): FileLogger {
  const level = opts.level ?? envLevel() ?? 'info';
  // Nowhere to write (the command line without --verbose): no logger library is even loaded.
  if (!opts.file && !opts.stderr) return { ...silentLogger, flush: async () => {}, close: async () => {} };
  const { pino, stdTimeFunctions } = loadPino();
  const file = opts.file ? openLogFile(opts.file, opts) : undefined;
  const sink = {
    write(line: string): void {
      const safe = redact(line);
      file?.write(safe);
      if (opts.stderr) process.stderr.write(safe);
    },
  };
  const root = pino(
    {
      level,
      base: undefined,
      messageKey: 'msg',
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    sink,
  );
  return {
    ...wrap(root, scope),
    flush: async () => file?.flush(),
    close: async () => file?.close(),
  };
}

/** pino, loaded on the first logger that writes somewhere (it is a dozen modules to start). */
function loadPino(): typeof Pino {
  return createRequire(import.meta.url)('pino') as typeof Pino;
}

/**
 * A scope's logger. Every scope is a child of the root, not of its parent scope: pino writes the
 * bindings of each level, so a child of a child would write "scope" twice in one JSON line.
 */
function wrap(root: PinoLogger, scope: string): Logger {
  const log = root.child({ scope });
  return {
    debug: (msg, data) => log.debug(data ?? {}, msg),
    info: (msg, data) => log.info(data ?? {}, msg),
    warn: (msg, data) => log.warn(data ?? {}, msg),
    error: (msg, data) => log.error(data ?? {}, msg),
    child: (s) => wrap(root, `${scope}.${s}`),
  };
}

function envLevel(): LogLevel | undefined {
  const v = process.env.SCAN2MESH_LOG_LEVEL;
  return v && LEVELS.includes(v) ? (v as LogLevel) : undefined;
}

function openLogFile(file: string, opts: LoggerOptions): RollingFile | undefined {
  makePrivate(file);
  try {
    return new RollingFile({ file, maxBytes: opts.maxFileBytes ?? 5 * 1024 ** 2, keep: opts.keepFiles ?? 5 });
  } catch {
    // As for writing: logging never takes the app down.
    return undefined;
  }
}

/**
 * Logs say which scans were worked on and when: the folder is the user's alone (0700) and each file
 * (0600, also when an older version made them readable by others).
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
