// Whole local jobs on the real head CT written as other exports write it (the audit's variants, made
// from the real files here): what the files say about their values reaches the engine's refusals
// and notes.
import { describe, expect, it } from 'vitest';
import { createWriteStream, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import yazl from 'yazl';
import {
  FIXTURES,
  evenText,
  patchElement,
  sameLength,
  short16,
  tempFolders,
  withElements,
  withPixels,
} from '../../scans/scans.test-support.js';
import type { MeshRequest, ProcessorResult } from '../processor.js';
import { createSegmentationProcessor } from './index.js';
import { madeMeshes } from './made-meshes.test-support.js';

const SERIES = join(FIXTURES, 'ct-human-cranium-teeth');
const processor = createSegmentationProcessor({ workers: 2 });
const { fresh } = tempFolders('s2m-job-values-');

/** The real series (signed HU, slope 1, intercept 0), each file changed by `change`, zipped. */
async function variant(name: string, change: (file: Buffer) => Buffer): Promise<string> {
  const dir = fresh(name);
  const zip = new yazl.ZipFile();
  for (const f of readdirSync(SERIES).sort()) {
    writeFileSync(join(dir, f), change(readFileSync(join(SERIES, f))));
    zip.addFile(join(dir, f), f);
  }
  zip.end();
  const path = join(dir, `${name}.zip`);
  const out = createWriteStream(path);
  zip.outputStream.pipe(out);
  await once(out, 'close');
  return path;
}

/** Rescale Slope and Intercept rewritten in place (the real files hold '1.0 ' and '0.0 '). */
function rescaled(file: Buffer, slope: string, intercept: string): Buffer {
  patchElement(file, 'x00281053', sameLength(file, 'x00281053', slope));
  patchElement(file, 'x00281052', sameLength(file, 'x00281052', intercept));
  return file;
}

async function job(zipPath: string, structures: string[]): Promise<ProcessorResult & { workDir: string }> {
  const workDir = join(fresh('job'), 'work');
  const meshes: MeshRequest[] = structures.map((s) => ({ extension: '.stl', structures: [s] }));
  const result = await processor.process(
    {
      jobId: 'values',
      inputs: [{ name: 'cbct', extension: '.zip', path: zipPath }],
      meshes,
      options: {},
      workDir,
    },
    () => {},
    new AbortController().signal,
  );
  return { ...result, workDir };
}

describe('local jobs on the real head CT as other exports write it', () => {
  it('refuses a skull of inverted values (Rescale Slope -1 on HU) in words; keeps a correct negative slope', async () => {
    const inverted = await variant('inverted', (f) => rescaled(f, '-1', '0'));
    const err = await job(inverted, ['skull']).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(
      /^The grey values of this scan look inverted, air brightest and bone darkest: what would be bone covers \d+ % of the scan's outer faces/,
    );
    // Stored 3000 - HU with slope -1 and intercept 3000: the same Hounsfield units, the same skull.
    const legit = await variant('negative-slope', (f) =>
      rescaled(
        withPixels(f, (v) => 3000 - v),
        '-1',
        '3000',
      ),
    );
    const made = await job(legit, ['skull']);
    expect(madeMeshes(made)[0]?.note).toMatch(/bone: grey value above 478\.5 \(from the scan's histogram\)/);
  }, 120_000);

  it('refuses soft_tissue lying on the edge of a 50 mm field of view padded with -1000 (declared), makes the skull', async () => {
    const fov = await variant('fov-50mm', (f) => {
      const ps = 0.957; // the series' pixel size, mm
      const out = (i: number, j: number): boolean => Math.hypot((i - 127.5) * ps, (j - 127.5) * ps) > 50;
      const padded = withPixels(f, (v, i, j) => (out(i, j) ? -1000 : v));
      return withElements(padded, [{ tag: 'x00280120', vr: 'SS', value: short16(-1000) }]);
    });
    const result = await job(fov, ['skull', 'soft_tissue']);
    expect(result.meshes[0]?.path).toBeDefined();
    expect(result.meshes[1]?.refused).toMatch(
      /^More of soft_tissue's surface would lie on the edge of the scan's round field of view \(\d+ %\) than against air/,
    );
    expect(existsSync(join(result.workDir, 'mesh-2-soft_tissue.stl'))).toBe(false);
  }, 120_000);

  it('finds undeclared -1000 outside a round field of view from where it lies, and says so in the note', async () => {
    const padded = (radius: number) => (f: Buffer) => {
      const ps = 0.957;
      const out = (i: number, j: number): boolean => Math.hypot((i - 127.5) * ps, (j - 127.5) * ps) > radius;
      return withPixels(f, (v, i, j) => (out(i, j) ? -1000 : v));
    };
    const narrow = await job(await variant('fov-50mm-undeclared', padded(50)), ['skull', 'soft_tissue']);
    expect(narrow.meshes[0]?.path).toBeDefined();
    expect(narrow.meshes[1]?.refused).toMatch(
      /^More of soft_tissue's surface would lie on the edge of the scan's round field of view/,
    );
    const wide = await job(await variant('fov-118mm-undeclared', padded(118)), ['soft_tissue']);
    expect(madeMeshes(wide)[0]?.note).toMatch(
      /soft-tissue: grey value above -?\d+(\.\d)? \(from the scan's histogram\)(, \d+ (small )?loose pieces? left out( \(the largest [\d.]+ cm³\))?)?; -1000 outside a round field of view 23\d mm across taken as padding \(the files declare none\), its edge as a cut face/,
    );
  }, 120_000);

  it('does not call values of 0.92 x HU with Rescale Type US Hounsfield units, and says why in the note', async () => {
    const us = await variant('rescale-type-us', (f) =>
      withElements(
        withPixels(f, (v) => Math.round(0.92 * v)),
        [{ tag: 'x00281054', vr: 'LO', value: evenText('US') }],
      ),
    );
    const note = madeMeshes(await job(us, ['all_teeth']))[0]?.note ?? '';
    expect(note).not.toMatch(/\(Hounsfield units: enamel/);
    expect(note).toMatch(
      /teeth: grey value above 1\d\d\d(\.\d)? \(1770\.5 HU scaled by the scan's air \(-?\d+(\.\d)?\) and soft-tissue \(\d+(\.\d)?\) grey values, taken for -1000 and \+30 HU \(an estimate: a soft-tissue peak 20 HU away moves the surface about 1 mm\), not as Hounsfield units: the scan's Rescale Type is US, not HU;/,
    );
  }, 120_000);
});
