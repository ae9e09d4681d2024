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
