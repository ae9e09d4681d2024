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

/** This boot of Linux (a random id, new at every boot), or undefined elsewhere. */
function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * When a process started, as Linux counts it: this boot's id and the clock ticks since boot
 * (/proc/<pid>/stat field 22), as `<boot id>:<ticks>`; undefined where that cannot be read (macOS,
 * Windows, a process that is gone). With the pid it names one process: a pid is given again to later
 * processes (in a container, every start is pid 1), and after a reboot even at the same tick, which the
 * boot id tells apart.
 */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The fields after the command name, which may itself hold spaces and parentheses.
    const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    if (ticks === undefined || !/^\d+$/.test(ticks)) return undefined;
    const boot = bootId();
    return boot === undefined ? ticks : `${boot}:${ticks}`;
  } catch {
    return undefined;
  }
}
