import { readFileSync } from 'node:fs';

/**
 * Whether a process with this pid exists: signal 0 checks without sending anything. A process of
 * another user counts as alive (kill answers EPERM); only ESRCH says it is gone.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * When a process started, as Linux counts it (clock ticks since boot, /proc/<pid>/stat field 22), or
 * undefined where that cannot be read (macOS, Windows, a process that is gone). With the pid it names
 * one process: a pid is given again to later processes (in a container, every start is pid 1).
 */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}
