/**
 * Worker thread of the slab pool: runs one pass of the extraction over one slab at a time. Volume,
 * mask, row tables and output all live in shared memory, so nothing big is copied either way.
 */
import { parentPort } from 'node:worker_threads';
import { countSlab, fillSlab, packSlab, type MeshTask } from './extract-slab.js';
import type { TaskReply, TaskRequest } from './worker-pool.js';

const port = parentPort;
if (!port) throw new Error('mesh-worker.entry must run in a worker thread');

port.on('message', (msg: TaskRequest<MeshTask>) => {
  try {
    const t = msg.task;
    if (t.kind === 'bits') packSlab(t.grid, t.range, t.bits);
    else if (t.kind === 'count') countSlab(t.grid, t.range, t.bits, t.counts);
    else fillSlab(t.grid, t.range, t.bits, t.offsets, t.positions, t.indices);
    const reply: TaskReply<null> = { id: msg.id, ok: true, result: null };
    port.postMessage(reply);
  } catch (e) {
    const reply: TaskReply = {
      id: msg.id,
      ok: false,
      error: { message: e instanceof Error ? e.message : String(e) },
    };
    port.postMessage(reply);
  }
});
