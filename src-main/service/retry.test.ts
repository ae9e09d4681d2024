import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_POLL, DEFAULT_RETRY, pollInterval, withJitter } from './retry.js';
import { retryAfterMs } from './http-transport.js';

describe('waiting between calls', () => {
  it('polls from about 2 s, backing off to about 30 s, spread by ±20 %', () => {
    const steps = Array.from({ length: 10 }, (_, n) => pollInterval(DEFAULT_POLL, n));
    expect(steps[0]).toBe(2_000);
    expect(steps[1]).toBe(3_000);
    expect(steps.at(-1)).toBe(30_000);
    expect(steps.every((v, i) => i === 0 || v >= (steps[i - 1] as number))).toBe(true);
    expect(withJitter(10_000, 0.2, () => 0)).toBe(8_000);
    expect(withJitter(10_000, 0.2, () => 1)).toBe(12_000);
  });

  it('backs off exponentially with jitter, never to zero and never past the cap', () => {
    expect(backoffDelay(DEFAULT_RETRY, 1, () => 0)).toBe(250);
    expect(backoffDelay(DEFAULT_RETRY, 1, () => 1)).toBe(500);
    expect(backoffDelay(DEFAULT_RETRY, 3, () => 1)).toBe(2_000);
    expect(backoffDelay(DEFAULT_RETRY, 20, () => 1)).toBe(30_000);
    expect(backoffDelay(DEFAULT_RETRY, 20, () => 0)).toBe(15_000);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2024-06-01T12:00:00Z');
    expect(retryAfterMs({ 'retry-after': '120' }, now)).toBe(120_000);
    expect(retryAfterMs({ 'retry-after': 'Sat, 01 Jun 2024 12:01:00 GMT' }, now)).toBe(60_000);
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(retryAfterMs({}, now)).toBeUndefined();
  });
});
