import { describe, expect, it } from 'vitest';
import { DEFAULT_QUEUE_POLICY } from './job-runner.js';
import { LOOPBACK_POLL, packageCompression, pollPolicyFor } from './loopback-tuning.js';
import { pollInterval } from '../service/retry.js';

describe('tuning by kind of connection', () => {
  it('sends the local engine a store-only package and remote services a deflated one', () => {
    expect(packageCompression('local-engine')).toBe(false);
    expect(packageCompression('remote')).toBe(true);
    expect(packageCompression('custom')).toBe(true);
  });

  it('polls the local engine at once and again within 50 ms of each answer (the engine holds polls)', () => {
    const p = pollPolicyFor('local-engine', DEFAULT_QUEUE_POLICY);
    expect(p.firstPollDelayMs).toBe(LOOPBACK_POLL.firstPollDelayMs);
    const waits = Array.from({ length: 20 }, (_, n) => pollInterval(p, n));
    expect(p.firstPollDelayMs).toBe(0);
    expect(waits[0]).toBe(20);
    expect(Math.max(...waits)).toBe(50);
    // The rest of the policy (jitter, transient failures, giving up) is the queue's.
    expect(p.giveUpAfterMs).toBe(DEFAULT_QUEUE_POLICY.giveUpAfterMs);
    expect(p.jitter).toBe(DEFAULT_QUEUE_POLICY.jitter);
  });

  it("keeps the interface's backoff for remote and command-line services", () => {
    expect(pollPolicyFor('remote', DEFAULT_QUEUE_POLICY)).toBe(DEFAULT_QUEUE_POLICY);
    expect(pollPolicyFor('custom', DEFAULT_QUEUE_POLICY)).toBe(DEFAULT_QUEUE_POLICY);
    const remote = pollPolicyFor('remote', DEFAULT_QUEUE_POLICY);
    expect(pollInterval(remote, 0)).toBe(2_000);
    expect(pollInterval(remote, 100)).toBe(30_000);
  });

  it('never makes a policy slower than it was (tests run with short waits)', () => {
    const fast = { ...DEFAULT_QUEUE_POLICY, initialMs: 10, maxMs: 20, firstPollDelayMs: 0 };
    expect(pollPolicyFor('local-engine', fast)).toMatchObject({
      initialMs: 10,
      maxMs: 20,
      firstPollDelayMs: 0,
    });
  });
});
