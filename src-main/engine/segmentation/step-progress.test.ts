import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_SIMPLIFY_ROUNDS } from './simplify.js';
import { HEARTBEAT_MS, simplifyProgress, stepOf } from './step-progress.js';

interface Said {
  share: number;
  stage: string;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function recorder(): { said: Said[]; report: (share: number, stage: string) => void } {
  const said: Said[] = [];
  return { said, report: (share, stage) => said.push({ share, stage }) };
}

describe('progress of the simplification', () => {
  it('keeps moving while two slabs run for a minute, never reaching their end before they end', () => {
    const { said, report } = recorder();
    const p = simplifyProgress(report, 'skull');
    p.onStep({ kind: 'parts', round: 0, done: 0, parts: 2 });
    vi.advanceTimersByTime(60 * HEARTBEAT_MS);
    const beats = said.slice(1);
    expect(beats.length).toBeGreaterThanOrEqual(59);
    expect(beats.at(-1)?.stage).toBe('simplifying the surface of skull: 0 of 2 parts done (60 s so far)');
    p.onStep({ kind: 'parts', round: 0, done: 1, parts: 2 });
    const firstDone = said.at(-1) as Said;
    expect(firstDone.stage).toBe('simplifying the surface of skull: 1 of 2 parts done');
    for (const b of beats) expect(b.share).toBeLessThan(firstDone.share);
    vi.advanceTimersByTime(5 * HEARTBEAT_MS);
    p.onStep({ kind: 'parts', round: 0, done: 2, parts: 2 });
    p.onStep({ kind: 'check', round: 0 });
    expect(said.at(-1)?.stage).toBe('checking that the simplified surface of skull is closed');
    for (let i = 1; i < said.length; i++) expect(said[i]!.share).toBeGreaterThan(said[i - 1]!.share);
    expect(said.at(-1)!.share).toBeLessThan(1);
    // Once the slabs are done the heartbeat is quiet.
    const n = said.length;
    vi.advanceTimersByTime(10 * HEARTBEAT_MS);
    expect(said.length).toBe(n);
  });

  it('gives every rerun of the simplifier a later share, all of them within the step', () => {
    const { said, report } = recorder();
    const p = simplifyProgress(report, 'skull');
    for (let round = 0; round < MAX_SIMPLIFY_ROUNDS; round++) {
      for (let done = 0; done <= 3; done++) p.onStep({ kind: 'parts', round, done, parts: 3 });
      p.onStep({ kind: 'check', round });
    }
    expect(said.find((s) => /round 2 of 4 at most.*: 1 of 3 parts done$/.test(s.stage))).toBeDefined();
    for (let i = 1; i < said.length; i++) expect(said[i]!.share).toBeGreaterThan(said[i - 1]!.share);
    expect(said.at(-1)!.share).toBeLessThan(1);
    expect(said[0]!.share).toBe(0);
    p.stop();
  });

  it('stops its heartbeat when told, as when the simplification fails', () => {
    const { said, report } = recorder();
    const p = simplifyProgress(report, 'skull');
    p.onStep({ kind: 'parts', round: 0, done: 0, parts: 2 });
    p.stop();
    vi.advanceTimersByTime(10 * HEARTBEAT_MS);
    expect(said).toHaveLength(1);
  });

  it('maps a step onto its part of the mesh, clamped to it', () => {
    const at: number[] = [];
    const step = stepOf((f) => () => at.push(f), 0.35, 0.9);
    for (const share of [-1, 0, 0.5, 1, 2]) step(share, '');
    expect(at).toEqual([0.35, 0.35, 0.625, 0.9, 0.9]);
  });
});
