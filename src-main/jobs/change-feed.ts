import { isTerminal, type JobView } from '../../src-shared/jobs.js';
import type { Logger } from '../logging/logger.js';
import type { JobRecord } from './job-record.js';
import type { JobStore } from './job-store.js';

type Listener = (changed: JobView[]) => void;

/**
 * Changes are told to listeners at most this often, so that bytes moved and steps taken by a batch
 * of hundreds do not flood them. A job's end, and what a user did, are told at the end of the turn:
 * a command waiting for its jobs, or a user watching one finish, should not wait out a tick.
 */
const EMIT_MS = 100;

/**
 * Who hears of job changes, and when: ids changed here or by another process (seen through SQLite's
 * data_version) are gathered and told once per tick, each job read once, as views.
 */
export class ChangeFeed {
  private readonly listeners = new Set<Listener>();
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Immediate | undefined;
  private closed = false;
  private lastDataVersion: number;
  private lastSeen: string;
  private readonly watch: NodeJS.Timeout;

  constructor(
    private readonly store: JobStore,
    private readonly view: (r: JobRecord) => JobView,
    /** Runs at each tick before the jobs are read (the live progress due is written then). */
    private readonly beforeTick: () => void,
    private readonly logger: Logger,
    /** How often, and what to do besides telling, when another process changed jobs. */
    watch: { everyMs: number; othersChanged: (changed: JobRecord[]) => void },
    /**
     * Whether a job's runner here stopped on an error it could not record as the job's failure (a
     * full disk under the queue), and no runner has taken the job up since: waiters take it as ended.
     */
    private readonly halted: (id: string) => boolean = () => false,
  ) {
    this.lastDataVersion = store.dataVersion();
    this.lastSeen = new Date().toISOString();
    this.watch = setInterval(() => {
      try {
        watch.othersChanged(this.othersChanged());
      } catch (e) {
        this.logger.error('changes of another process could not be read', { error: String(e) });
      }
    }, watch.everyMs);
    this.watch.unref();
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** `now`: an end or a user's change (told this turn); otherwise told within EMIT_MS. */
  changed(ids: Iterable<string>, now = false): void {
    for (const id of ids) this.pending.add(id);
    if (this.closed || this.soon) return;
    if (now) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      this.soon = setImmediate(() => {
        this.soon = undefined;
        this.tick();
      });
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.tick();
    }, EMIT_MS);
  }

  private tick(): void {
    try {
      this.flush();
    } catch (e) {
      this.logger.error('job changes could not be told', { error: String(e) });
    }
  }

  /** One tick: each job changed since the last one is read once, and told to every listener. */
  flush(): void {
    const ids = [...this.pending];
    this.pending.clear();
    this.beforeTick();
    if (this.listeners.size === 0) return;
    const views: JobView[] = [];
    for (const id of ids) {
      const r = this.store.get(id);
      if (r) views.push(this.view(r));
    }
    if (views.length > 0) for (const l of this.listeners) l(views);
  }

  /** Changes committed by another process since the last look; they are told like ours. */
  private othersChanged(): JobRecord[] {
    const v = this.store.dataVersion();
    if (v === this.lastDataVersion) return [];
    this.lastDataVersion = v;
    const since = this.lastSeen;
    this.lastSeen = new Date(Date.now() - 1_000).toISOString();
    const changed = this.store.changedSince(since);
    this.changed(
      changed.map((r) => r.id),
      true,
    );
    return changed;
  }

  /** Resolves when every job named is done, failed or canceled (or gone, or halted), with their views. */
  waitFor(ids: string[]): Promise<JobView[]> {
    const read = (id: string): JobView | undefined => {
      const r = this.store.get(id);
      return r ? this.view(r) : undefined;
    };
    const open = new Set(
      ids.filter((id) => {
        const r = this.store.get(id);
        return r !== undefined && !isTerminal(r.state) && !this.halted(id);
      }),
    );
    const result = (): JobView[] => ids.map(read).filter((v): v is JobView => v !== undefined);
    if (open.size === 0) return Promise.resolve(result());
    return new Promise((resolve) => {
      // Only the jobs that changed are looked at: a batch of hundreds must not be read on every change.
      const off = this.onChange((changed) => {
        for (const v of changed) if (isTerminal(v.state) || this.halted(v.id)) open.delete(v.id);
        if (open.size === 0) {
          off();
          resolve(result());
        }
      });
    });
  }

  /** Stops looking at other processes' changes. */
  stopWatching(): void {
    clearInterval(this.watch);
  }

  /** Tells what is pending now, and nothing after. */
  close(): void {
    this.stopWatching();
    this.flush();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.soon) clearImmediate(this.soon);
  }
}
