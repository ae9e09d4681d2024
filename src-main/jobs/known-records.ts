import type { JobRecord } from './job-record.js';

/** Jobs running at once are a few dozen; past this many, keeping every read is not worth the memory. */
const MAX_KEPT = 1_000;

/**
 * The job records last read, by id: a running job is looked at many times between its writes. The
 * store drops a job's entry on every write of it, and all of them when another connection committed
 * (SQLite's data_version moved), so that a record served from here is what a read would return.
 * Records are shared: callers treat them as read-only, as the JSON values in them already are.
 */
export class KnownRecords {
  private readonly records = new Map<string, JobRecord>();
  private version = -1;

  /** The record kept for `id`, unless the database changed under this connection since. */
  get(id: string, dataVersion: number): JobRecord | undefined {
    if (dataVersion !== this.version) {
      this.records.clear();
      this.version = dataVersion;
    }
    return this.records.get(id);
  }

  set(record: JobRecord): JobRecord {
    if (this.records.size >= MAX_KEPT) this.records.clear();
    this.records.set(record.id, record);
    return record;
  }

  /** The job is being written: its next read goes to the database. Every job, without an id. */
  drop(id?: string): void {
    if (id === undefined) this.records.clear();
    else this.records.delete(id);
  }
}
