import type { RunningEngine } from '../engine/local-engine.js';

interface EngineOnDemand {
  /** The engine, started by the first call. */
  get(): Promise<RunningEngine>;
  /** Stops the engine if it was started. */
  close(): Promise<void>;
}

/**
 * The local engine of one command: started only if the command needs it (a job for it, or test-auth
 * without connection flags), and stopped when the command ends.
 */
export function engineOnDemand(start: () => Promise<RunningEngine>): EngineOnDemand {
  let engine: Promise<RunningEngine> | undefined;
  return {
    get: () => (engine ??= start()),
    async close() {
      if (engine) await (await engine.catch(() => undefined))?.close();
    },
  };
}
