import { describe, expect, it } from 'vitest';
import { stageHeader } from './poll-state.js';

describe('X-Stage header', () => {
  it('decodes the stage the local engine sends', () => {
    expect(stageHeader(encodeURIComponent('extracting the surface of skull'))).toBe(
      'extracting the surface of skull',
    );
  });

  it('drops what is absent, malformed, repeated or too long, and blanks control characters', () => {
    expect(stageHeader(undefined)).toBeUndefined();
    expect(stageHeader('%E0%A4%A')).toBeUndefined();
    expect(stageHeader(['a', 'b'])).toBeUndefined();
    expect(stageHeader('x'.repeat(121))).toBeUndefined();
    expect(stageHeader(encodeURIComponent('line\nbreak'))).toBe('line break');
  });
});
