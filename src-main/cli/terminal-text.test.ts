import { describe, expect, it } from 'vitest';
import { oneLine, safeLines, terminalSafe } from './terminal-text.js';

describe('terminal text', () => {
  it('shows every control character a terminal would obey as U+FFFD', () => {
    // ESC sequences (clear, title), BEL, CR, DEL, a C1 CSI, and a right-to-left override.
    const hostile = 'a\u001b[2Jb\u001b]0;title\u0007c\rd\u007fe\u009bf\u202eg';
    expect(terminalSafe(hostile)).toBe('a\uFFFD[2Jb\uFFFD]0;title\uFFFDc\uFFFDd\uFFFDe\uFFFDf\uFFFDg');
  });

  it('keeps the output’s own newlines and tabs, and keeps a value on its line', () => {
    expect(terminalSafe('one\ttwo\nthree\n')).toBe('one\ttwo\nthree\n');
    expect(oneLine('name\nSkipped 0 files:\tx')).toBe('name\uFFFDSkipped 0 files: x');
    expect(safeLines(['first', 'a\nb'])).toBe('first\na\uFFFDb');
  });

  it('leaves ordinary text, accents and other scripts alone', () => {
    const text = 'Müller^Zoë — 東京 ä\u00a0b';
    expect(terminalSafe(text)).toBe(text);
    expect(oneLine(text)).toBe(text);
  });
});
