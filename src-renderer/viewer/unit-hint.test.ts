import { describe, expect, it } from 'vitest';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { fixtureMesh } from './fixture-meshes.test-support.js';
import { diagonalMm, unitHint } from './unit-hint.js';
import { boundsOf } from './weld.js';

const box = (x: number, y: number, z: number): number[] => [0, 0, 0, x, y, z];

describe('unitHint', () => {
  it('says nothing for anatomy-sized meshes in mm, from a tooth to a head', () => {
    expect(unitHint('tooth.stl', box(8, 9, 22))).toBeNull();
    expect(unitHint('skull.stl', box(225.2, 214.6, 158.2))).toBeNull();
    expect(unitHint('neck.stl', box(300, 300, 600))).toBeNull();
  });

  it('reads a mesh 0.156 mm across as a file in metres and says what it would measure', () => {
    const b = box(0.144, 0.06, 0);
    const hint = unitHint('jaw.stl', b)!;
    expect(diagonalMm(b)).toBeCloseTo(0.156, 3);
    expect(hint.factor).toBe(1000);
    expect(hint.unit).toBe('metres');
    expect(hint.message).toBe(
      'jaw.stl is 0.156 mm across, smaller than any tooth: the file is probably in metres (156.0 mm if so).',
    );
  });

  it('offers centimetres or inches, without choosing, for a mesh a few mm across', () => {
    const hint = unitHint('crown.stl', box(1.5, 1.5, 1))!;
    expect(hint.factor).toBeNull();
    expect(hint.message).toMatch(/may be in centimetres \(23\.5 mm\) or inches \(59\.6 mm\)/);
  });

  it('reads a head-sized mesh in micrometres as such', () => {
    const hint = unitHint('skull.stl', box(200_000, 180_000, 150_000))!;
    expect(hint.factor).toBe(0.001);
    expect(hint.message).toMatch(
      /larger than a head: the file is probably in micrometres \(308\.1 mm if so\)/,
    );
  });

  it('gives no guess for sizes no unit explains', () => {
    expect(unitHint('huge.stl', box(2000, 2000, 2000))!.factor).toBeNull();
    expect(unitHint('dust.stl', box(1e-6, 1e-6, 1e-6))!.message).toMatch(/check the units/);
  });

  it('flags the skull fixture once scaled down to metres', () => {
    const g = new STLLoader().parse(fixtureMesh('skull-invesalius-cranium-400k-binary.stl'));
    const positions = (g.attributes.position!.array as Float32Array).map((v) => v / 1000);
    expect(unitHint('skull-in-metres.stl', boundsOf(positions))?.factor).toBe(1000);
  });
});
