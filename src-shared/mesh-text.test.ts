import { describe, expect, it } from 'vitest';
import { LineSplitter, MAX_LINE_BYTES, decimal, words } from './mesh-text.js';

/** The lines a splitter hears from these pieces, with whether a line break ended each. */
function split(pieces: string[]): [string, number, boolean][] {
  const heard: [string, number, boolean][] = [];
  const lines = new LineSplitter('an OBJ mesh', (line, n, ended) => heard.push([line, n, ended]));
  for (const p of pieces) lines.push(p);
  lines.end();
  return heard;
}

describe('the text rules the download check and the viewer share', () => {
  it('joins a line cut between pieces once, and tells a last line without a break', () => {
    expect(split(['v 1 2', ' 3\nf 1', ' 2 ', '3\n\nv 4 5 6'])).toEqual([
      ['v 1 2 3', 1, true],
      ['f 1 2 3', 2, true],
      ['', 3, true],
      ['v 4 5 6', 4, false],
    ]);
  });

  it('refuses a line longer than 1 MiB once it has read about that much, not the whole file', () => {
    const lines = new LineSplitter('an OBJ mesh', () => {}, 7);
    const piece = 'x'.repeat(64 * 1024);
    let pushed = 0;
    const refusal = (() => {
      try {
        for (let i = 0; i < 1_000; i++) {
          lines.push(piece);
          pushed += piece.length;
        }
      } catch (e) {
        return (e as Error).message;
      }
      return 'read 64 MB';
    })();
    expect(refusal).toBe('line 7 is longer than 1,048,576 bytes: not an OBJ mesh');
    expect(pushed).toBeLessThanOrEqual(MAX_LINE_BYTES);
  });

  it('splits words at spaces, tabs and CR only, and reads decimal numbers only', () => {
    expect(words(' f\t1 2\r')).toEqual(['f', '1', '2']);
    expect(words('f\xA01 2 3')).toEqual(['f\xA01', '2', '3']);
    expect(['1', '-2.5', '.5', '1.', '+3e-2', '1E5'].map(decimal)).toEqual([1, -2.5, 0.5, 1, 0.03, 1e5]);
    // 1e999 is a decimal number, but no coordinate: Infinity is refused where any word is.
    for (const no of [
      '0x1',
      'nan',
      'NaN',
      'inf',
      'Infinity',
      '1_0',
      '',
      '1e',
      '0b1',
      '--1',
      '.',
      '1e+',
      '1e999',
      '-1e999',
    ])
      expect(decimal(no)).toBeNaN();
  });
});
