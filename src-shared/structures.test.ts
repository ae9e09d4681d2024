import { describe, expect, it } from 'vitest';
import { structureDisplayName } from './structures.js';

describe('structureDisplayName', () => {
  it('gives the label of a known structure, and a name the service adds made readable', () => {
    expect(structureDisplayName('all_teeth')).toBe('All teeth');
    expect(structureDisplayName('tooth11')).toBe('Tooth 11 (upper right)');
    // A review: the viewer listed the local engine's `soft_tissue` and `airway` as sent.
    expect(structureDisplayName('soft_tissue')).toBe('Soft tissue');
    expect(structureDisplayName('airway')).toBe('Airway');
    expect(structureDisplayName('left-maxillary_sinus')).toBe('Left maxillary sinus');
  });
});
