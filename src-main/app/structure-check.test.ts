import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeableNames } from '../../src-shared/structure-check.js';
import { STRUCTURES } from '../../src-shared/structures.js';
import { createSegmentationProcessor } from '../engine/segmentation/index.js';
import {
  copyClaimingSyntax,
  PHANTOM_DIR,
  patchElement,
  phantomBySlice,
  phantomFiles,
  sameLength,
} from '../scans/scans.test-support.js';
import { checkMeshes, connectionCapabilities, refuseUnmakeable, scanRefusalFor } from './structure-check.js';
import { testCore } from './core.test-support.js';
import type { Core } from './core.js';
import type { IntakeResult } from '../../src-shared/scans.js';

const engine = createSegmentationProcessor();
const local = connectionCapabilities('local-engine', engine);
const work = mkdtempSync(join(tmpdir(), 'scan2mesh-structure-check-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What the engine itself says of a job asking for this one name: null when it would take it. */
const engineVerdict = (name: string): string | null =>
  engine.validate({
    inputs: [{ name: 'cbct', extension: '.zip' }],
    meshes: [{ extension: '.stl', structures: [name] }],
  });

describe('what a connection can make', () => {
  it('takes the local engine at its word for every catalogue name, shorthands included', () => {
    for (const s of STRUCTURES) {
      const verdict = checkMeshes([{ structures: [s.name] }], local, 'the local engine');
      expect(verdict.refused.length === 0, s.name).toBe(engineVerdict(s.name) === null);
    }
    // Its own names beyond the catalogue are made; a name it does not know is refused with what it makes.
    for (const name of makeableNames(local) ?? []) expect(engineVerdict(name), name).toBeNull();
    const femur = checkMeshes([{ structures: ['femur'] }], local, 'the local engine');
    expect(engineVerdict('femur')).not.toBeNull();
    expect(femur.refused).toEqual([
      { name: 'femur', reason: expect.stringMatching(/^Not a name the local engine knows; it makes /) },
    ]);
  });

  it('lets a remote service, the authority on its names, be asked for anything', () => {
    const remote = connectionCapabilities('remote', engine);
    expect(checkMeshes([{ structures: ['femur', 'tooth11'] }], remote, 'Relu')).toEqual({
      refused: [],
      accepted: ['femur', 'tooth11'],
    });
    expect(() => refuseUnmakeable([{ structures: ['femur'] }], remote, 'Relu')).not.toThrow();
  });

  it('refuses with every refused name and its reason, and the names it can make', () => {
    const good = makeableNames(local)![0]!;
    expect(() =>
      refuseUnmakeable(
        [{ structures: [good, 'femur'] }, { structures: ['femur'] }],
        local,
        'the local engine',
      ),
    ).toThrow(
      expect.objectContaining({
        code: 'bad-request',
        message: expect.stringMatching(new RegExp(`cannot make femur\\. femur: .* It can make ${good}\\.$`)),
      }),
    );
  });

  it('judges each mesh as the engine would: names it makes alone but refuses merged are refused before any job', () => {
    for (const pair of [
      ['skull', 'all_teeth'],
      ['soft_tissue', 'all_teeth'],
    ]) {
      const verdict = checkMeshes([{ structures: pair }], local, 'the local engine');
      const name = pair.join(' + ');
      expect(verdict.refused, name).toEqual([
        { name, reason: expect.stringMatching(/^in one mesh would be just the outermost surface/) },
      ]);
      expect(verdict.accepted).toEqual(pair);
      expect(() => refuseUnmakeable([{ structures: pair }], local, 'the local engine')).toThrow(
        expect.objectContaining({
          code: 'bad-request',
          message: expect.stringContaining(`cannot make ${name}.`),
        }),
      );
    }
    // What the engine takes together stays accepted: airway joins any surface, and so do separate meshes.
    expect(checkMeshes([{ structures: ['skull', 'airway'] }], local, 'the local engine').refused).toEqual([]);
    expect(
      checkMeshes([{ structures: ['skull'] }, { structures: ['all_teeth'] }], local, 'the local engine')
        .refused,
    ).toEqual([]);
  });
});

/** Reads a folder as the renderer would: through a grant the transport issued for it. */
async function intake(core: Core, dir: string): Promise<IntakeResult> {
  const r = await core.dispatch('scans.intake', { grants: [core.scanGrants.grant(dir).id] });
  if (!r.ok) throw new Error(r.error.message);
  return r.value as IntakeResult;
}

describe('jobs.submit, the last line of defence', () => {
  it('refuses what the local engine cannot make, and an unfit series, before any job or package', async () => {
    const core = testCore();
    try {
      const { series } = await intake(core, PHANTOM_DIR);
      const femur = await core.dispatch('jobs.submit', {
        seriesIds: [series[0]!.id],
        meshes: [{ structures: ['femur'], extension: '.stl' }],
        deidentify: false,
      });
      expect(femur).toMatchObject({ ok: false, error: { code: 'bad-request' } });
      if (!femur.ok) expect(femur.error.message).toMatch(/cannot make femur\. femur: Not a name/);
      // Two names the engine makes, merged in one mesh it refuses: refused here, not after packing.
      const merged = await core.dispatch('jobs.submit', {
        seriesIds: [series[0]!.id],
        meshes: [{ structures: ['skull', 'all_teeth'], extension: '.stl' }],
        deidentify: false,
      });
      expect(merged).toMatchObject({ ok: false, error: { code: 'bad-request' } });
      if (!merged.ok) expect(merged.error.message).toMatch(/cannot make skull \+ all_teeth\. /);

      const slab = join(work, 'two-slices');
      mkdirSync(slab);
      for (const f of phantomFiles().slice(0, 2)) copyFileSync(f, join(slab, basename(f)));
      const two = (await intake(core, slab)).series[0]!;
      expect(two.fitness.fit).toBe(false);
      const unfit = await core.dispatch('jobs.submit', {
        seriesIds: [two.id],
        meshes: [{ structures: [makeableNames(local)![0]!], extension: '.stl' }],
        deidentify: false,
      });
      expect(unfit).toMatchObject({ ok: false, error: { code: 'bad-input' } });
      if (!unfit.ok) expect(unfit.error.message).toContain(two.fitness.reasons[0]);

      // A whole scan with one slice cut short: a model could be made of its extent, but not of a
      // damaged file. It is not usable, so it is refused with the file's error.
      const cut = join(work, 'one-cut-short');
      mkdirSync(cut);
      for (const f of phantomFiles()) copyFileSync(f, join(cut, basename(f)));
      const victim = join(cut, basename(phantomFiles()[70]!));
      truncateSync(victim, statSync(victim).size - 1000);
      const damaged = (await intake(core, cut)).series[0]!;
      const error = damaged.problems.find((p) => p.severity === 'error');
      expect(error?.code).toBe('truncated-file');
      const refused = await core.dispatch('jobs.submit', {
        seriesIds: [damaged.id],
        meshes: [{ structures: [makeableNames(local)![0]!], extension: '.stl' }],
        deidentify: false,
      });
      expect(refused).toMatchObject({ ok: false, error: { code: 'bad-input' } });
      if (!refused.ok) expect(refused.error.message).toContain(error!.message);

      // Every fifth slice, each 5 mm thick (as a thick-slice scan states it): 5 mm apart. Teeth cannot
      // be made of that (the engine's rule), and the voxel size is on the card: refused before
      // packing, not when the engine reads the scan.
      const thick = join(work, 'every-fifth-slice');
      mkdirSync(thick);
      for (const f of phantomBySlice().filter((_, i) => i % 5 === 0)) {
        const bytes = readFileSync(f);
        patchElement(bytes, 'x00180050', sameLength(bytes, 'x00180050', '5'));
        writeFileSync(join(thick, basename(f)), bytes);
      }
      const coarse = (await intake(core, thick)).series[0]!;
      expect(coarse.fitness.fit).toBe(true);
      expect(scanRefusalFor([{ structures: ['skull'] }], local, coarse)).toBeNull();
      const teeth = await core.dispatch('jobs.submit', {
        seriesIds: [coarse.id],
        meshes: [
          { structures: ['skull'], extension: '.stl' },
          { structures: ['all_teeth'], extension: '.stl' },
        ],
        deidentify: false,
      });
      expect(teeth).toMatchObject({ ok: false, error: { code: 'bad-input' } });
      if (!teeth.ok)
        expect(teeth.error.message).toMatch(/all_teeth: The slices are 5\.0 mm apart in this scan/);

      expect(await core.dispatch('jobs.list', {})).toMatchObject({ ok: true, value: { jobs: [] } });
      expect(existsSync(join(core.platform.dataDir, 'packages'))).toBe(false);
      expect(
        readdirSync(core.platform.dataDir).filter((f) => !/^(jobs\.sqlite|logs|tmp|settings)/.test(f)),
      ).toEqual([]);
    } finally {
      await core.dispose();
    }
  });

  it('refuses images no decoder here reads before a local job, and names an encoding that is no UID', async () => {
    const core = testCore();
    try {
      // 30 real slices whose meta header names an encoding scan2mesh does not know: a remote service
      // may read them, the local engine cannot (its job failed after packing, blaming the images'
      // fragments).
      const unknown = join(work, 'unknown-syntax');
      mkdirSync(unknown);
      for (const f of phantomBySlice().slice(0, 30))
        copyClaimingSyntax(f, join(unknown, basename(f)), '1.2.840.10008.1.2.9');
      const [series] = (await intake(core, unknown)).series;
      expect(series!.problems.map((p) => p.message)).toContain(
        'The images are stored in an encoding scan2mesh does not know (transfer syntax 1.2.840.10008.1.2.9). A remote service may read them; this computer cannot show a preview of them or segment them with the local engine.',
      );
      expect(scanRefusalFor([{ structures: ['skull'] }], local, series!)).toBe(
        'The local engine cannot decode these images (Unknown transfer syntax 1.2.840.10008.1.2.9). Send the scan to a remote service, or export it again uncompressed.',
      );
      expect(
        scanRefusalFor([{ structures: ['skull'] }], connectionCapabilities('remote', engine), series!),
      ).toBeNull();
      const refused = await core.dispatch('jobs.submit', {
        seriesIds: [series!.id],
        meshes: [{ structures: ['skull'], extension: '.stl' }],
        deidentify: false,
      });
      expect(refused).toMatchObject({ ok: false, error: { code: 'bad-input' } });

      // An encoding named by no UID at all: the meta header is damaged.
      const garbled = join(work, 'garbled-syntax');
      mkdirSync(garbled);
      for (const f of phantomBySlice().slice(0, 30))
        copyClaimingSyntax(f, join(garbled, basename(f)), '1.2.840.10008.1.2.1x');
      const [bad] = (await intake(core, garbled)).series;
      expect(bad!.problems).toContainEqual(
        expect.objectContaining({
          severity: 'error',
          message: expect.stringMatching(
            /^The files name their encoding "1\.2\.840\.10008\.1\.2\.1x" \(Transfer Syntax UID\), which is no UID/,
          ) as unknown,
        }),
      );
    } finally {
      await core.dispose();
    }
  });
});
