import { describe, expect, it } from 'vitest';
import { PollResultSchema } from './job-spec.js';

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
