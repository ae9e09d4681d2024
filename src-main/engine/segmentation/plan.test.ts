import { describe, expect, it } from 'vitest';
import { describeStructure, meshSettings, structureNote, validateSpec } from './plan.js';

const spec = (extension: string, ...structures: string[][]) => ({
  inputs: [{ name: 'cbct', extension }],
  meshes: structures.map((s) => ({ extension: '.stl', structures: s })),
});

describe('validateSpec', () => {
  it('accepts DICOM inputs and the structures a threshold can find', () => {
    for (const ext of ['.dcm', '.zip', '.dcm.gz', '.zip.gz', '.ZIP']) {
      expect(
        validateSpec(spec(ext, ['mandible', 'all_teeth'], ['skull'], ['airway', 'soft_tissue'])),
      ).toBeNull();
    }
  });

  it('refuses formats only the remote service reads, and unknown ones, saying what to send', () => {
    expect(validateSpec(spec('.nii.gz', ['mandible']))).toMatch(/reads DICOM only.*"\.nii\.gz".*remote/);
    expect(validateSpec(spec('.nrrd', ['mandible']))).toMatch(/remote service only/);
    expect(validateSpec(spec('.tar', ['mandible']))).toMatch(
      /"\.tar" is not supported.*\.dcm, \.zip, \.dcm\.gz, \.zip\.gz/,
    );
  });

  it('refuses nerves and single teeth by name and says a remote service is needed', () => {
    const msg = validateSpec(spec('.zip', ['mandible', 'left_nerve'], ['tooth11', 'tooth36']));
    expect(msg).toMatch(/left_nerve: the mandibular canals .* need a remote segmentation service/);
    expect(msg).toMatch(/tooth11, tooth36: separate teeth need a remote segmentation service.*all_teeth/);
    expect(validateSpec(spec('.zip', ['all_nerves']))).toMatch(/all_nerves/);
  });

  it('names unknown structures and lists the known ones', () => {
    expect(validateSpec(spec('.zip', ['mandibel']))).toMatch(
      /Unknown structure mandibel: the local engine knows mandible, maxillary/,
    );
  });

  it('refuses inputs other than cbct, missing cbct, bad mesh extensions and empty requests', () => {
    expect(
      validateSpec({
        inputs: [
          { name: 'cbct', extension: '.zip' },
          { name: 'ios_upper', extension: '.stl' },
        ],
        meshes: spec('.zip', ['skull']).meshes,
      }),
    ).toMatch(/ios_upper needs a remote/);
    expect(validateSpec({ inputs: [], meshes: spec('.zip', ['skull']).meshes })).toMatch(/no "cbct" input/);
    expect(
      validateSpec({
        inputs: [{ name: 'cbct', extension: '.zip' }],
        meshes: [{ extension: '.fbx', structures: ['skull'] }],
      }),
    ).toMatch(/"\.fbx" is not supported; use \.stl, \.ply, \.obj, \.drc/);
    expect(validateSpec({ inputs: [{ name: 'cbct', extension: '.zip' }], meshes: [] })).toMatch(/no mesh/);
  });
});

describe('meshSettings', () => {
  it('defaults to 0.1 mm and reads the service option groups and structure names', () => {
    expect(meshSettings(['mandible'], {})).toEqual({ decimateMaxError: 0.1, smoothingIterations: 5 });
    expect(
      meshSettings(['mandible'], { mandible: { decimateMaxError: 0.3, smoothingIterations: 0 } }),
    ).toEqual({
      decimateMaxError: 0.3,
      smoothingIterations: 0,
    });
    expect(
      meshSettings(['maxillary'], { 'maxillary-complex': { decimateMaxError: 0 } }).decimateMaxError,
    ).toBe(0);
    expect(meshSettings(['all_teeth'], { dentition: { smoothingIterations: 2 } }).smoothingIterations).toBe(
      2,
    );
  });

  it('takes the most careful value when one mesh merges groups', () => {
    const s = meshSettings(['mandible', 'skull'], {
      mandible: { decimateMaxError: 0.5 },
      skull: { decimateMaxError: 0.2, smoothingIterations: 9 },
    });
    expect(s).toEqual({ decimateMaxError: 0.2, smoothingIterations: 5 });
  });

  it('refuses options of the wrong type with a clear error', () => {
    expect(() => meshSettings(['mandible'], { mandible: { decimateMaxError: '0.1' } })).toThrow(
      /decimateMaxError must be a number/,
    );
    expect(() => meshSettings(['mandible'], { mandible: { smoothingIterations: 1.5 } })).toThrow(
      /whole number/,
    );
    expect(() => meshSettings(['mandible'], { mandible: 3 })).toThrow(/must be an object/);
  });
});

describe('describeStructure', () => {
  it('says honestly what a threshold gives, and nothing for structures it refuses', () => {
    expect(describeStructure('mandible')).toBe('bone surface, not separated from the skull or the maxilla');
    expect(structureNote('all_teeth')).toMatch(/^all_teeth: .*teeth not separated/);
    expect(describeStructure('left_nerve')).toBeUndefined();
    expect(describeStructure('tooth11')).toBeUndefined();
  });
});
