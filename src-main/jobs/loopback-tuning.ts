import type { PollPolicy } from '../service/retry.js';
import type { ConnectionKind } from '../connections/connection-resolver.js';

/**
 * How a job talks to its service, by kind of connection. The local engine runs on this machine, on
 * loopback: moving bytes and answering a poll cost next to nothing there, while the user waits for
 * every second. Remote services keep the interface's habits (deflated uploads, polls backing off from
 * about 2 s to 30 s), which spare their network and their servers.
 */

/** Deflate the package's zip entries? Not for the local engine: it would only inflate them again. */
export function packageCompression(kind: ConnectionKind): boolean {
  return kind !== 'local-engine';
}

/**
 * Polls of the local engine: the first at once, then 20 to 50 ms after each answer. The engine holds a
 * poll until the job reaches its next stage or its end (engine/default-engine.ts, up to 2 s), so a
 * poll is always waiting there and the end of the job answers it at once; the short spacing only
 * bridges the moment between one answer and the next poll, and costs a handful of loopback requests
 * per job, not one every few milliseconds.
 */
export const LOOPBACK_POLL = { initialMs: 20, maxMs: 50, firstPollDelayMs: 0 } as const;

/**
 * The poll spacing for a connection: for the local engine, LOOPBACK_POLL (a poll there is a loopback
 * request of a few hundred bytes, held by the engine); others keep the policy given.
 */
export function pollPolicyFor<P extends PollPolicy & { firstPollDelayMs: number }>(
  kind: ConnectionKind,
  policy: P,
): P {
  if (kind !== 'local-engine') return policy;
  return {
    ...policy,
    initialMs: Math.min(policy.initialMs, LOOPBACK_POLL.initialMs),
    maxMs: Math.min(policy.maxMs, LOOPBACK_POLL.maxMs),
    firstPollDelayMs: Math.min(policy.firstPollDelayMs, LOOPBACK_POLL.firstPollDelayMs),
  };
}
