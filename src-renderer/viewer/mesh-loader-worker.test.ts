import { afterEach, describe, expect, it, vi } from 'vitest';
import { meshBudget } from './mesh-budget.js';
import type { LoadRequest, WorkerMessage } from './mesh-loader-protocol.js';

/** A 2 GB file of zeros, as a File the user picked: only its first bytes are ever read here. */
class Zeros extends Blob {
  override get size(): number {
    return 2 ** 31;
  }
  override slice(start = 0, end = this.size): Blob {
    return new Blob([new Uint8Array(Math.max(0, Math.min(end, this.size) - start))]);
  }
}

/** Runs the loader's worker in this thread on one request; its last message. */
async function load(req: LoadRequest): Promise<WorkerMessage> {
  vi.resetModules();
  const done = new Promise<WorkerMessage>((resolve) =>
    vi.stubGlobal('self', {
      postMessage: (m: WorkerMessage) => {
        if (m.type !== 'progress') resolve(m);
      },
    }),
  );
  await import('./mesh-loader.worker.js');
  (globalThis as unknown as { self: { onmessage(e: { data: LoadRequest }): void } }).self.onmessage({
    data: req,
  });
  return done;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the loader worker', () => {
  it('refuses 2 GB of zeros as no mesh, in every format, not as a mesh too large to read', async () => {
    const says = {
      obj: /line 1 holds binary data .*: it is not an OBJ mesh/,
      stl: /neither a binary STL .* it is not an STL mesh/,
      ply: /does not start with "ply", so it is not a PLY file/,
      drc: /does not start with "DRACO", so it is not a Draco file/,
    };
    for (const format of ['obj', 'stl', 'ply', 'drc'] as const) {
      const m = await load({
        name: `zeros.${format}`,
        format,
        source: new Zeros(),
        budget: meshBudget(8, 0),
      });
      expect(m.type).toBe('error');
      const message = m.type === 'error' ? m.error.message : '';
      expect(message).toMatch(says[format]);
      expect(message).not.toMatch(/too large/);
    }
  });
});
