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

/** Polls of the local engine: the first after 100 ms, then every 100 to 250 ms. */
export const LOOPBACK_POLL = { initialMs: 100, maxMs: 250, firstPollDelayMs: 100 } as const;

/**
 * The poll spacing for a connection: for the local engine, short enough that a finished job is seen
 * within a quarter of a second (a poll there is a loopback request of a few hundred bytes); others
 * keep the policy given.
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
