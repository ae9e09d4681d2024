import { isUsable } from '../../src-shared/series-usable.js';
import { intake } from './intake.js';

/** Whether the one series of a file is usable, and its errors' words, as inspect finds them. */
export async function inspectedOne(
  file: string,
  tempDir: string,
): Promise<{ usable: boolean; errors: string[] }> {
  const { result } = await intake([file], { tempDir });
  const s = result.series[0]!;
  return {
    usable: isUsable(s),
    errors: s.problems.filter((p) => p.severity === 'error').map((p) => p.message),
  };
}
