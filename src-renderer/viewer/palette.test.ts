import { describe, expect, it } from 'vitest';
import {
  CLINICAL_COLOURS,
  FALLBACK_COLOURS,
  colourForStructures,
  nextFallbackColour,
  structureHintsFromFileName,
} from './palette.js';

describe('palette', () => {
  it('gives each structure group its clinical colour', () => {
    expect(colourForStructures(['mandible'])).toBe(CLINICAL_COLOURS.bone);
    expect(colourForStructures(['maxillary'])).toBe(CLINICAL_COLOURS.bone);
    expect(colourForStructures(['skull'])).toBe(CLINICAL_COLOURS.bone);
    expect(colourForStructures(['all_teeth'])).toBe(CLINICAL_COLOURS.teeth);
    expect(colourForStructures(['tooth36'])).toBe(CLINICAL_COLOURS.teeth);
    expect(colourForStructures(['tooth85'])).toBe(CLINICAL_COLOURS.teeth);
    expect(colourForStructures(['left_nerve'])).toBe(CLINICAL_COLOURS.nerve);
    expect(colourForStructures(['all_nerves'])).toBe(CLINICAL_COLOURS.nerve);
    expect(colourForStructures(['airway'])).toBe(CLINICAL_COLOURS.airway);
    expect(colourForStructures(['soft_tissue'])).toBe(CLINICAL_COLOURS.softTissue);
    expect(colourForStructures(['left_maxillary_sinus'])).toBe(CLINICAL_COLOURS.sinus);
  });

  it('uses the first structure it knows and returns null for unknown names', () => {
    expect(colourForStructures(['implant', 'left_nerve'])).toBe(CLINICAL_COLOURS.nerve);
    expect(colourForStructures(['bunny'])).toBeNull();
    expect(colourForStructures([])).toBeNull();
  });

  it('reads structure hints from file names', () => {
    expect(structureHintsFromFileName('case12_mandible.stl')).toEqual([
      'case12_mandible',
      'case12',
      'mandible',
    ]);
    expect(colourForStructures(structureHintsFromFileName('/out/job-7/all_teeth.ply'))).toBe(
      CLINICAL_COLOURS.teeth,
    );
    expect(colourForStructures(structureHintsFromFileName('skull-invesalius-cranium-400k-binary.stl'))).toBe(
      CLINICAL_COLOURS.bone,
    );
    expect(colourForStructures(structureHintsFromFileName('bunny-binary.stl'))).toBeNull();
  });

  it('hands out unused fallback colours, distinct from the clinical ones', () => {
    expect(nextFallbackColour([])).toBe(FALLBACK_COLOURS[0]);
    expect(nextFallbackColour([FALLBACK_COLOURS[0]!.toUpperCase()])).toBe(FALLBACK_COLOURS[1]);
    const clinical = new Set<string>(Object.values(CLINICAL_COLOURS));
    for (const c of FALLBACK_COLOURS) expect(clinical.has(c)).toBe(false);
    expect(new Set(FALLBACK_COLOURS).size).toBe(FALLBACK_COLOURS.length);
    // All used: cycles instead of failing.
    expect(FALLBACK_COLOURS).toContain(nextFallbackColour(FALLBACK_COLOURS));
  });
});
