import { describe, expect, it } from 'vitest';
import { PERMANENT_TEETH, DECIDUOUS_TEETH } from '../../src-shared/structures';
import {
  checkFreeName,
  isCovered,
  planMeshes,
  refusedChoices,
  structureKey,
  structureLabel,
  toggleName,
  toggleTooth,
  withoutNamePrefix,
} from './structure-selection';

describe('structure selection', () => {
  it('adds and removes a single tooth', () => {
    expect(toggleTooth(['mandible'], 'tooth36')).toEqual(['mandible', 'tooth36']);
    expect(toggleTooth(['mandible', 'tooth36'], 'tooth36')).toEqual(['mandible']);
  });

  it('removing a tooth chosen through a shorthand keeps the other teeth', () => {
    const next = toggleTooth(['mandible', 'all_permanent_teeth'], 'tooth11');
    expect(next).not.toContain('all_permanent_teeth');
    expect(next).not.toContain('tooth11');
    expect(next.filter((n) => n.startsWith('tooth'))).toHaveLength(PERMANENT_TEETH.length - 1);
    expect(next[0]).toBe('mandible');
  });

  it('removing a tooth keeps the shorthands that do not include it, and no tooth twice', () => {
    const next = toggleTooth(['all_teeth', 'all_permanent_teeth'], 'tooth55');
    expect(next[0]).toBe('all_permanent_teeth');
    expect(next.slice(1)).toEqual(DECIDUOUS_TEETH.filter((t) => t !== 'tooth55'));
    expect(isCovered('tooth55', next)).toBe(false);
    expect(isCovered('tooth11', next)).toBe(true);
  });

  it('knows what a shorthand covers', () => {
    expect(isCovered('left_nerve', ['all_nerves'])).toBe(true);
    expect(isCovered('tooth51', ['all_permanent_teeth'])).toBe(false);
    expect(toggleName(['a'], 'b')).toEqual(['a', 'b']);
    expect(toggleName(['a', 'b'], 'a')).toEqual(['b']);
  });

  it('plans one file per structure or one merged file, within the request limits', () => {
    expect(planMeshes([], 'separate', '.stl')).toEqual({ problem: 'Choose at least one structure.' });
    expect(planMeshes(['mandible', 'all_nerves'], 'separate', '.ply')).toEqual({
      meshes: [
        { structures: ['mandible'], extension: '.ply' },
        { structures: ['all_nerves'], extension: '.ply' },
      ],
    });
    expect(planMeshes(['mandible', 'all_nerves'], 'merged', '.stl')).toEqual({
      meshes: [{ structures: ['mandible', 'all_nerves'], extension: '.stl' }],
    });
    const many = planMeshes([...PERMANENT_TEETH, 'mandible'], 'separate', '.stl');
    expect('problem' in many && many.problem).toMatch(/at most 32 separate files; you chose 33/);
  });

  it('reports what the connection refuses, by its own verdict on each name, or as unknown', () => {
    const caps = {
      anyStructure: false,
      refused: [
        { name: 'tooth11', reason: 'tooth11: Single teeth need the remote service; ask for all_teeth.' },
      ],
      notes: [],
    };
    // all_teeth is judged as the connection judges it, as one name: the whole dentition is made
    // although single teeth are not.
    const unknown =
      /^Not a name Local engine knows; it makes Mandible, Maxilla, .*All teeth, .* and single teeth\.$/;
    expect(refusedChoices(['mandible', 'tooth11', 'all_teeth', 'airway'], caps, 'Local engine')).toEqual([
      // Ids in an engine's words become labels; plain words stay.
      { name: 'tooth11', reason: 'Single teeth need the remote service; ask for All teeth.' },
      { name: 'airway', reason: expect.stringMatching(unknown) },
    ]);
    const withExtra = { ...caps, extra: [{ name: 'airway', note: 'airway: the largest air space' }] };
    expect(refusedChoices(['airway', 'sinus', 'sinus'], withExtra, 'Local engine')).toEqual([
      { name: 'sinus', reason: expect.stringMatching(/, Airway and single teeth\.$/) },
    ]);
    expect(refusedChoices(['airway'], { ...caps, anyStructure: true }, 'Relu')).toEqual([]);
    expect(refusedChoices(['tooth11'], null, 'x')).toEqual([]);
  });

  it('labels names beyond the catalogue in words, and keys their spellings as one', () => {
    expect(structureLabel('maxillary')).toBe('Maxilla');
    expect(structureLabel('soft_tissue')).toBe('Soft tissue');
    expect(structureKey('soft-tissue')).toBe(structureKey('soft_tissue'));
  });

  it('drops the name a note starts with', () => {
    expect(withoutNamePrefix('mandible', 'mandible: bone surface')).toBe('bone surface');
    expect(withoutNamePrefix('mandible', 'bone surface')).toBe('bone surface');
  });

  it('checks typed names and suggests the right spelling', () => {
    expect(checkFreeName('airway', [])).toBeNull();
    expect(checkFreeName('  ', [])).toMatch(/Type a structure name/);
    expect(checkFreeName('Left Sinus', [])).toMatch(/e\.g\. left_sinus/);
    expect(checkFreeName('left_nerve', ['all_nerves'])).toBe('Left mandibular canal is already chosen.');
    // One entry per structure: another spelling of a chosen name is the same structure.
    expect(checkFreeName('soft-tissue', ['soft_tissue'])).toBe('Soft tissue is already chosen.');
  });
});
