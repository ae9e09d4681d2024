import { create } from 'zustand';
import { isTerminal } from '../../src-shared/job-states';
import type { JobView, SavedOutputState, SubmitJobsRequest } from '../../src-shared/jobs';
import { api, errorText, type ErrorText } from '../bridge/api';
import { jobOrder } from './job-format';

interface JobsState {
  jobs: JobView[];
  paused: boolean;
  loaded: boolean;
  error: ErrorText | null;
  /** Per job: the last action that failed (cancel, retry...), shown next to it. */
  actionErrors: Record<string, ErrorText>;
  /** Per ended job: whether each saved mesh is still where and as it was saved (jobs.outputsOnDisk). */
  onDisk: Record<string, SavedOutputState[]>;
  load(): Promise<void>;
  /** Asks again whether the ended jobs' meshes are still as saved (the user may have moved them). */
  checkOnDisk(): Promise<void>;
  merge(changed: JobView[], paused: boolean): void;
  submit(req: SubmitJobsRequest): Promise<JobView[]>;
  /** 'resubmit': a job that may exist on the service is created again, as the user asked. */
  act(id: string, what: 'cancel' | 'retry' | 'resubmit' | 'remove' | 'prioritize'): Promise<void>;
  reveal(id: string, index: number): Promise<void>;
  setPaused(paused: boolean): Promise<void>;
  /** One action for every job of a batch that it fits; the batch's failure shows on its row. */
  /** `only`: for a retry, the jobs to retry (those a retry may change: job-format.ts `retriable`). */
  actBatch(
    batchId: string,
    what: 'pause' | 'resume' | 'cancel' | 'retry',
    only?: readonly string[],
  ): Promise<void>;
}

export const useJobs = create<JobsState>((set, get) => ({
  jobs: [],
  paused: false,
  loaded: false,
  error: null,
  actionErrors: {},
  onDisk: {},

  async load() {
    try {
      const { jobs, paused } = await api.jobs.list({});
      set({ jobs: jobOrder(jobs), paused, loaded: true, error: null });
    } catch (e) {
      set({ error: errorText(e), loaded: true });
    }
  },

  async checkOnDisk() {
    const ids = get()
      .jobs.filter((j) => isTerminal(j.state) && j.outputs.length > 0)
      .map((j) => j.id);
    if (ids.length === 0) return;
    try {
      const { states } = await api.jobs.outputsOnDisk({ ids });
      set({ onDisk: states });
    } catch {
      // Only a mark on the list: the viewer and "Show in folder" still say so in words when used.
    }
  },

  merge(changed, paused) {
    set((s) => {
      const byId = new Map(s.jobs.map((j) => [j.id, j]));
      for (const j of changed) {
        const old = byId.get(j.id);
        // Events may overtake each other; never step a job back to an older view of itself.
        if (!old || old.updatedAt <= j.updatedAt) byId.set(j.id, j);
      }
      return { jobs: jobOrder([...byId.values()]), paused };
    });
  },

  async submit(req) {
    const { jobs } = await api.jobs.submit(req);
    get().merge(jobs, get().paused);
    return jobs;
  },

  async act(id, what) {
    set((s) => {
      const actionErrors = { ...s.actionErrors };
      delete actionErrors[id];
      return { actionErrors };
    });
    try {
      if (what === 'resubmit') await api.jobs.retry({ id, resubmit: true });
      else await api.jobs[what]({ id });
      if (what === 'remove') set((s) => ({ jobs: s.jobs.filter((j) => j.id !== id) }));
    } catch (e) {
      set((s) => ({ actionErrors: { ...s.actionErrors, [id]: errorText(e) } }));
    }
  },

  async reveal(id, index) {
    try {
      await api.jobs.reveal({ id, index });
    } catch (e) {
      set((s) => ({ actionErrors: { ...s.actionErrors, [id]: errorText(e) } }));
    }
  },

  async actBatch(batchId, what, only) {
    const key = `batch:${batchId}`;
    set((s) => {
      const actionErrors = { ...s.actionErrors };
      delete actionErrors[key];
      return { actionErrors };
    });
    try {
      if (what === 'pause') await api.jobs.pause({ batchId });
      else if (what === 'resume') await api.jobs.resume({ batchId });
      else {
        const jobs = get().jobs.filter((j) => j.batchId === batchId);
        // Cancel stops what has not ended; retry starts again what failed or was canceled, except a
        // job that may exist on the service: that one the user resubmits knowingly, from its own row.
        const targets = jobs.filter((j) =>
          what === 'cancel'
            ? !isTerminal(j.state)
            : ((j.state === 'failed' && j.error?.code !== 'job-may-exist') || j.state === 'canceled') &&
              (only === undefined || only.includes(j.id)),
        );
        for (const j of targets) await api.jobs[what]({ id: j.id });
      }
    } catch (e) {
      set((s) => ({ actionErrors: { ...s.actionErrors, [key]: errorText(e) } }));
    }
  },

  async setPaused(paused) {
    try {
      if (paused) await api.jobs.pause({});
      else await api.jobs.resume({});
      set({ paused });
    } catch (e) {
      set({ error: errorText(e) });
    }
  },
}));
