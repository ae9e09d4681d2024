import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Logger } from '../../logging/logger.js';
import { PRIVATE_FILE_MODE, privateDir } from '../../platform/private-files.js';

/**
 * The engine's jobs, in memory and as one job.json per job in the data folder, so that an engine
 * restarted on the same folder still answers polls for jobs it finished and resumes interrupted ones.
 * A job's folder holds a copy of the patient's scan: it and all in it are private to the user.
 */
const EngineInputSchema = z.object({
  name: z.string(),
  extension: z.string(),
  downloadUrl: z.string().optional(),
  path: z.string(),
  uploaded: z.boolean(),
  notified: z.boolean(),
});

const EngineMeshSchema = z.object({
  extension: z.string(),
  structures: z.array(z.string()),
  uploadUrl: z.string().optional(),
  path: z.string().optional(),
  size: z.number().optional(),
  note: z.string().optional(),
  triangles: z.number().optional(),
  /** Not made, and why (processor.ts RefusedMesh): listed with the status Refused. */
  refused: z.string().optional(),
});

const EngineJobSchema = z.object({
  id: z.string(),
  createdAt: z.number(),
  /** §3: awaiting input until every input is transferred and notified, then processing, then finished. */
  state: z.enum(['awaiting-input', 'processing', 'finished', 'failed']),
  inputs: z.array(EngineInputSchema),
  meshes: z.array(EngineMeshSchema),
  options: z.record(z.string(), z.unknown()),
  finishWebhook: z.string().optional(),
  progress: z.object({ fraction: z.number(), stage: z.string() }),
  error: z.string().optional(),
  finishedAt: z.number().optional(),
});

export type EngineJob = z.infer<typeof EngineJobSchema>;

export class JobStore {
  private readonly jobs = new Map<string, EngineJob>();

  constructor(
    private readonly root: string,
    private readonly logger: Logger,
  ) {}

  jobDir(id: string): string {
    return join(this.root, 'jobs', id);
  }

  get(id: string): EngineJob | undefined {
    return this.jobs.get(id);
  }

  all(): EngineJob[] {
    return [...this.jobs.values()];
  }

  async add(job: EngineJob): Promise<void> {
    await privateDir(join(this.root, 'jobs'));
    await privateDir(join(this.jobDir(job.id), 'inputs'));
    await privateDir(join(this.jobDir(job.id), 'work'));
    this.jobs.set(job.id, job);
    await this.save(job);
  }

  /** Written to a temporary file and renamed, so a crash never leaves half a job.json. */
  async save(job: EngineJob): Promise<void> {
    const file = join(this.jobDir(job.id), 'job.json');
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(job), { mode: PRIVATE_FILE_MODE });
    await rename(tmp, file);
  }

  /**
   * Removes the job's copies of the scan (the upload in inputs/, what was unpacked of it in work/)
   * once they are of no more use, its meshes kept for download: a finished or failed job is never
   * processed again (a retry is a new job), and a copy of patient data lives no longer than it must.
   */
  async dropScanCopies(job: EngineJob): Promise<void> {
    const keep = new Set(job.meshes.map((m) => m.path).filter((p): p is string => p !== undefined));
    await rm(join(this.jobDir(job.id), 'inputs'), { recursive: true, force: true });
    const work = join(this.jobDir(job.id), 'work');
    const names = await readdir(work).catch(() => [] as string[]);
    for (const name of names)
      if (!keep.has(join(work, name))) await rm(join(work, name), { recursive: true, force: true });
  }

  /** Forgets the job and deletes its folder: its copies of the scan and its meshes. */
  async remove(id: string): Promise<void> {
    this.jobs.delete(id);
    await rm(this.jobDir(id), { recursive: true, force: true, maxRetries: 3 });
  }

  /** Loads the jobs of earlier runs; those older than `retentionMs` are deleted with their files. */
  async load(retentionMs: number): Promise<void> {
    let ids: string[];
    try {
      ids = await readdir(join(this.root, 'jobs'));
    } catch {
      return;
    }
    for (const id of ids) {
      try {
        const parsed = EngineJobSchema.safeParse(
          JSON.parse(await readFile(join(this.jobDir(id), 'job.json'), 'utf8')),
        );
        if (!parsed.success || parsed.data.id !== id) throw new Error('unreadable job.json');
        if (Date.now() - parsed.data.createdAt > retentionMs) {
          await rm(this.jobDir(id), { recursive: true, force: true });
          continue;
        }
        this.jobs.set(id, parsed.data);
      } catch (e) {
        this.logger.warn('engine job folder skipped', { id, error: String(e) });
      }
    }
  }
}
