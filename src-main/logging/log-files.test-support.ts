import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';

/** The files a logger with this base path has written (logs/x.log -> logs/x.1.log, x.2.log, …), oldest first. */
export function logFilesOf(base: string): string[] {
  const dir = dirname(base);
  const ext = extname(base);
  const name = basename(base, ext);
  if (!existsSync(dir)) return [];
  const numbered = readdirSync(dir)
    .map((f) => ({
      f,
      m: new RegExp(`^${name.replace(/\W/g, '\\$&')}\\.(\\d+)${ext.replace('.', '\\.')}$`).exec(f),
    }))
    .filter((x): x is { f: string; m: RegExpExecArray } => x.m !== null)
    .sort((a, b) => Number(a.m[1]) - Number(b.m[1]));
  return numbered.map((x) => join(dir, x.f));
}

/** Everything those files hold, oldest first: what the logger wrote that rotation has kept. */
export function readLogs(base: string): string {
  return logFilesOf(base)
    .map((f) => readFileSync(f, 'utf8'))
    .join('');
}
