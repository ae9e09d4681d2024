import { describe, expect, it } from 'vitest';
import { fileNamePartWithSuffix, PollResultSchema, sanitizeFileNamePart } from './job-spec.js';

const mesh = {
  status: 'Available',
  size: 68484,
  extension: '.stl',
  structures: ['mandible'],
  url: 'https://storage.example/out/0.stl?sig=1',
};

describe('PollResultSchema (§2.3: "the response contains further fields beyond these")', () => {
  it('takes fields beyond the interface whatever their type, and reads them only when they are text', () => {
    for (const extra of [null, 42, { code: 7, text: 'x' }, ['a'], true]) {
      const r = PollResultSchema.safeParse({
        success: true,
        message: extra,
        outputFiles: { meshes: [{ ...mesh, note: extra }] },
      });
      expect(r.success).toBe(true);
      expect(r.data?.message).toBeUndefined();
      expect(r.data?.outputFiles?.meshes?.[0]?.note).toBeUndefined();
    }
    const text = PollResultSchema.parse({
      success: false,
      message: 'no bone found',
      outputFiles: { meshes: [{ ...mesh, note: 'bone surface' }] },
    });
    expect(text.message).toBe('no bone found');
    expect(text.outputFiles?.meshes?.[0]?.note).toBe('bone surface');
  });

  it('still says what is missing from what the interface shows', () => {
    const r = PollResultSchema.safeParse({
      success: true,
      outputFiles: { meshes: [{ ...mesh, status: 3 }] },
    });
    expect(r.success).toBe(false);
  });
});

describe('sanitizeFileNamePart', () => {
  it('keeps Windows device names from being a file name, with an extension too', () => {
    for (const name of [
      'aux.scan',
      'CON.txt',
      'nul.stl',
      'Com1.zip',
      'LPT9',
      'com¹',
      'LPT³.x',
      'conout$',
      'prn .a',
    ])
      expect(sanitizeFileNamePart(name), name).toBe(`_${name}`);
    // Only the whole name before its first dot is a device's.
    for (const name of ['auxiliary.scan', 'console', 'com10', 'a.con'])
      expect(sanitizeFileNamePart(name), name).toBe(name);
  });

  it('cuts a long name between characters, never inside an emoji or an accented letter', () => {
    const emoji = sanitizeFileNamePart(`${'a'.repeat(119)}😀tail`);
    expect(emoji).toBe('a'.repeat(119));
    expect(emoji).not.toContain('\uFFFD');
    expect(sanitizeFileNamePart(`${'b'.repeat(118)}😀tail`)).toBe(`${'b'.repeat(118)}😀`);
    // e + combining acute (not composed by NFC with a following mark pair): kept whole or left out.
    const accent = sanitizeFileNamePart(`${'c'.repeat(119)}q\u0301\u0302`);
    expect(accent).toBe('c'.repeat(119));
    // A flag is two code points: never half of one.
    expect(sanitizeFileNamePart(`${'d'.repeat(118)}🇫🇷`)).toBe('d'.repeat(118));
    // After the cut the name does not end on a dot or a space, which Windows drops.
    expect(sanitizeFileNamePart(`${'e'.repeat(119)}. more`)).toBe('e'.repeat(119));
  });

  it('keeps a name within 240 UTF-8 bytes (most file systems allow 255)', () => {
    const cjk = sanitizeFileNamePart('患'.repeat(200));
    // 患 is 3 bytes in UTF-8.
    expect([...cjk].length * 3).toBeLessThanOrEqual(240);
    expect(cjk).toBe('患'.repeat(80));
  });
});

describe('fileNamePartWithSuffix', () => {
  it('keeps the suffix of a name at the limit, which the cut where the path is made took off', () => {
    const long = 'a'.repeat(130);
    const second = fileNamePartWithSuffix(long, '-2');
    expect(second).toBe(`${'a'.repeat(118)}-2`);
    // Made safe again where the path is made, it is still itself, and not the first one's name.
    expect(sanitizeFileNamePart(second)).toBe(second);
    expect(second).not.toBe(sanitizeFileNamePart(long));
    expect(fileNamePartWithSuffix(`${'b'.repeat(117)}😀x`, '-10')).toBe(`${'b'.repeat(117)}-10`);
    expect(fileNamePartWithSuffix('short', '-2')).toBe('short-2');
  });
});
