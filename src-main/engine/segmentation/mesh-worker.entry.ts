/**
 * Worker thread of the slab pool: runs one pass of the extraction over one slab at a time. Volume,
 * mask, row tables and output all live in shared memory, so nothing big is copied either way.
 * It also runs one smoothing step over a range of vertices (smooth.ts), simplifies one slab of a
 * finished surface (simplify-parts.ts), and copies or counts part of a volume (volume-tasks.ts).
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import { AppError } from '../../../src-shared/errors.js';
import { countSlab, packSlab } from './extract-slab.js';
import { fillSlab } from './fill-slab.js';
import type { SlabTask } from './iso-surface.js';
import { simplifyPart, warmUpSimplifier, type SimplifyPartResult } from './simplify-parts.js';
import { smoothStep } from './smooth.js';
import { replyTransfers, runVolumeTask, type VolumeReply } from './volume-tasks.js';
import type { TaskError, TaskReply, TaskRequest } from './worker-pool.js';

if (!parentPort) throw new Error('mesh-worker.entry must run in a worker thread');
const port: MessagePort = parentPort;
// Best effort: a failure here would show again, in words, on the first real slab.
warmUpSimplifier().catch(() => {});

function fail(id: number, e: unknown): void {
  const message = e instanceof Error ? e.message : String(e);
  // An AppError keeps its code and action across the thread: the pool rebuilds it from them.
  const error: TaskError =
    e instanceof AppError
      ? { message, code: e.code, ...(e.action ? { action: e.action } : {}) }
      : { message };
  const reply: TaskReply = { id, ok: false, error };
  port.postMessage(reply);
}

port.on('message', (msg: TaskRequest<SlabTask>) => {
  const t = msg.task;
  if (t.kind === 'planes' || t.kind === 'histogram' || t.kind === 'runs') {
    try {
      const result = runVolumeTask(t);
      const reply: TaskReply<VolumeReply> = { id: msg.id, ok: true, result };
      // Counts and runs are this thread's own arrays: handed over, not copied.
      port.postMessage(reply, replyTransfers(result));
    } catch (e) {
      fail(msg.id, e);
    }
    return;
  }
  if (t.kind === 'simplify') {
    simplifyPart(t).then(
      (result) => {
        const reply: TaskReply<SimplifyPartResult> = { id: msg.id, ok: true, result };
        // The indices are this thread's own array: handed over, not copied.
        port.postMessage(reply, [result.indices.buffer as ArrayBuffer]);
      },
      (e: unknown) => fail(msg.id, e),
    );
    return;
  }
  try {
    if (t.kind === 'bits') packSlab(t.grid, t.range, t.bits);
    else if (t.kind === 'count') countSlab(t.grid, t.range, t.bits, t.counts);
    else if (t.kind === 'smooth') smoothStep(t);
    else fillSlab(t.grid, t.range, t.bits, t.offsets, t.positions, t.indices);
    const reply: TaskReply<null> = { id: msg.id, ok: true, result: null };
    port.postMessage(reply);
  } catch (e) {
    fail(msg.id, e);
  }
});
