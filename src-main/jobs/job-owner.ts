import { randomBytes } from 'node:crypto';
import { processAlive } from '../platform/process-alive.js';
import type { JobRecord } from './job-record.js';
import type { JobStore } from './job-store.js';

/** Which process runs a job: an owner (pid and a random tag) with a lease, kept in the job's row. */

/** Another live process holds the job (its lease runs and its pid exists). */
function runByOtherProcess(rec: JobRecord, self: string): boolean {
  if (!rec.owner || rec.owner === self || (rec.leaseUntil ?? 0) < Date.now()) return false;
  return !ownerGone(rec.ownerPid);
}

/** The process that owned a job is gone (crashed or killed) when its pid no longer exists. */
export function ownerGone(pid: number | undefined): boolean {
  if (!pid) return true;
  if (pid === process.pid) return false;
  return !processAlive(pid);
}

/**
 * This process as the owner of the jobs it runs: a claim takes a job (or takes it over from a process
 * that is gone), a heartbeat keeps the lease, and a release lets another process take it.
 */
export class Ownership {
  readonly owner = `${process.pid}:${randomBytes(6).toString('hex')}`;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly store: JobStore,
    private readonly leaseMs: number,
    safely: (fn: () => void) => void,
  ) {
    this.heartbeat = setInterval(() => safely(() => store.heartbeat(this.owner, leaseMs)), leaseMs / 3);
    this.heartbeat.unref();
  }

  claim(rec: JobRecord): boolean {
    const takeOver = rec.owner && rec.owner !== this.owner && ownerGone(rec.ownerPid) ? rec.owner : undefined;
    return this.store.claim(rec.id, this.owner, process.pid, this.leaseMs, takeOver);
  }

  /** Another live process runs the job. */
  elsewhere(rec: JobRecord): boolean {
    return runByOtherProcess(rec, this.owner);
  }

  release(id?: string): void {
    this.store.release(this.owner, id);
  }

  /** Lets go of these jobs in one commit. */
  releaseEach(ids: string[]): void {
    this.store.together(() => {
      for (const id of ids) this.store.release(this.owner, id);
    });
  }

  stop(): void {
    clearInterval(this.heartbeat);
  }
}
