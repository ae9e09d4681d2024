import type { JobRecord } from './job-record.js';

/** Jobs running at once are a few dozen; past this many, keeping every read is not worth the memory. */
const MAX_KEPT = 1_000;

/** Writes by every store of this process, so that one store sees another's at once (see version()). */
let writesHere = 0;

/**
 * The job records last read, by id: a running job is looked at many times between its writes. The
 * store drops a job's entry on every write of it (wrote()), and all of them when another connection
 * committed (SQLite's data_version moved), so that a record served from here is what a read would
 * return. Records are shared: callers treat them as read-only, as the JSON values in them already are.
 */
export class KnownRecords {
  private readonly records = new Map<string, JobRecord>();
  private version = -1;
  private turnVersion: number | undefined;
  private turnTimer: NodeJS.Immediate | undefined;
  /** writesHere when data_version was last asked, plus this store's own writes since. */
  private checkedAt = -1;

  /** `dataVersion` reads SQLite's data_version of the store's connection. */
  constructor(private readonly dataVersion: () => number) {}

  /** The record kept for `id`, unless the database changed under this connection since. */
  get(id: string): JobRecord | undefined {
    const v = this.versionThisTurn();
    if (v !== this.version) {
      this.records.clear();
      this.version = v;
    }
    return this.records.get(id);
  }

  set(record: JobRecord): JobRecord {
    if (this.records.size >= MAX_KEPT) this.records.clear();
    this.records.set(record.id, record);
    return record;
  }

  /** The job is being written: its next read goes to the database. Every job, without an id. */
  wrote(id?: string): void {
    if (id === undefined) this.records.clear();
    else this.records.delete(id);
    // The connection's own writes leave data_version as it is: what was asked this turn stays good.
    if (this.checkedAt === writesHere) this.checkedAt++;
    writesHere++;
  }

  /**
   * data_version as of this turn of the event loop: asked once per turn, as a queue looks at its jobs
   * dozens of times in one. A commit of another process is seen at the next turn at the latest (no
   * reader could tell it from one committed a moment later); one of another store of this process
   * (tests run two "processes" in one) at once.
   */
  private versionThisTurn(): number {
    if (this.turnVersion === undefined || this.checkedAt !== writesHere) {
      this.turnVersion = this.dataVersion();
      this.checkedAt = writesHere;
      this.turnTimer ??= setImmediate(() => {
        this.turnTimer = undefined;
        this.turnVersion = undefined;
      });
    }
    return this.turnVersion;
  }
}
