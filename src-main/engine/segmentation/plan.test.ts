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
        validateSpec(spec(ext, ['all_teeth'], ['skull', 'airway'], ['airway', 'soft_tissue'])),
      ).toBeNull();
    }
  });

  it('refuses formats only the remote service reads, and unknown ones, saying what to send', () => {
    expect(validateSpec(spec('.nii.gz', ['skull']))).toMatch(/reads DICOM only.*"\.nii\.gz".*remote/);
    expect(validateSpec(spec('.nrrd', ['skull']))).toMatch(/remote service only/);
    expect(validateSpec(spec('.tar', ['skull']))).toMatch(
      /"\.tar" is not supported.*\.dcm, \.zip, \.dcm\.gz, \.zip\.gz/,
    );
  });

  it('refuses nerves and single teeth by name and says a remote service is needed', () => {
    const msg = validateSpec(spec('.zip', ['skull', 'left_nerve'], ['tooth11', 'tooth36']));
    expect(msg).toMatch(/left_nerve: the mandibular canals .* need a remote segmentation service/);
    expect(msg).toMatch(/tooth11, tooth36: separate teeth need a remote segmentation service.*all_teeth/);
    expect(validateSpec(spec('.zip', ['all_nerves']))).toMatch(/all_nerves/);
  });

  it('names unknown structures and lists the known ones', () => {
    expect(validateSpec(spec('.zip', ['mandibel']))).toMatch(
      /Unknown structure mandibel: the local engine knows skull, all_teeth, airway, soft_tissue\./,
    );
  });

  it("refuses names whose surface would be another name's, saying which name to ask for", () => {
    expect(validateSpec(spec('.zip', ['mandible'], ['maxillary']))).toBe(
      'mandible, maxillary: the local engine cannot separate the mandible from the maxilla and the skull (a threshold finds all bone as one); ask for skull (all bone) or use a remote segmentation service.',
    );
    expect(validateSpec(spec('.zip', ['all_permanent_teeth']))).toMatch(
      /cannot tell permanent from deciduous teeth, so this would be the same surface as all_teeth; ask for all_teeth/,
    );
    expect(validateSpec(spec('.zip', ['soft-tissue']))).toMatch(/options group.*ask for soft_tissue/);
  });

  it('refuses a mesh that merges nested tissues: it would be the outer surface under another name', () => {
    expect(validateSpec(spec('.zip', ['skull', 'all_teeth']))).toMatch(
      /Mesh 1: skull \+ all_teeth in one mesh would be just the outermost surface/,
    );
    expect(validateSpec(spec('.zip', ['soft_tissue', 'skull'], ['all_teeth', 'all_teeth']))).toMatch(
      /^Mesh 1: soft_tissue \+ skull/,
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
    expect(meshSettings(['skull'], {})).toEqual({ decimateMaxError: 0.1, smoothingIterations: 5 });
    expect(meshSettings(['skull'], { skull: { decimateMaxError: 0.3, smoothingIterations: 0 } })).toEqual({
      decimateMaxError: 0.3,
      smoothingIterations: 0,
    });
    expect(meshSettings(['soft_tissue'], { 'soft-tissue': { decimateMaxError: 0 } }).decimateMaxError).toBe(
      0,
    );
    expect(meshSettings(['all_teeth'], { dentition: { smoothingIterations: 2 } }).smoothingIterations).toBe(
      2,
    );
  });

  it('takes the most careful value when one mesh merges groups', () => {
    const s = meshSettings(['airway', 'skull'], {
      airway: { decimateMaxError: 0.5 },
      skull: { decimateMaxError: 0.2, smoothingIterations: 9 },
    });
    expect(s).toEqual({ decimateMaxError: 0.2, smoothingIterations: 5 });
  });

  it('refuses options of the wrong type with a clear error', () => {
    expect(() => meshSettings(['skull'], { skull: { decimateMaxError: '0.1' } })).toThrow(
      /decimateMaxError must be a number/,
    );
    expect(() => meshSettings(['skull'], { skull: { smoothingIterations: 1.5 } })).toThrow(/whole number/);
    expect(() => meshSettings(['skull'], { skull: 3 })).toThrow(/must be an object/);
  });
});

describe('describeStructure', () => {
  it('says honestly what a threshold gives, and nothing for structures it refuses', () => {
    expect(describeStructure('skull')).toMatch(/^all bone as one surface: skull, maxilla and mandible/);
    expect(describeStructure('mandible')).toBeUndefined();
    expect(describeStructure('all_permanent_teeth')).toBeUndefined();
    expect(describeStructure('soft-tissue')).toBeUndefined();
    expect(structureNote('all_teeth')).toMatch(/^all_teeth: .*teeth not separated/);
    expect(describeStructure('left_nerve')).toBeUndefined();
    expect(describeStructure('tooth11')).toBeUndefined();
  });
});
