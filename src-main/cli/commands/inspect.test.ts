import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { IntakeResultSchema } from '../../../src-shared/scans.js';
import { FIXTURES, patchElement, PHANTOM_DIR, sameLength } from '../../scans/scans.test-support.js';

const project = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Runs the real command line from source, as a user would run the built one. */
function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(project, 'src-main', 'cli', 'cli.ts'), ...args],
    {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, SCAN2MESH_LOG_LEVEL: 'error' },
    },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('scan2mesh inspect', () => {
  it('prints the series found as one JSON document', () => {
    const r = cli('inspect', PHANTOM_DIR, join(FIXTURES, 'bad', 'rtplan-no-pixeldata.dcm'), '--json');
    expect(r.status).toBe(0);
    const result = IntakeResultSchema.parse(JSON.parse(r.stdout));
    expect(result.series).toHaveLength(1);
    expect(result.series[0]).toMatchObject({ slices: 140, rows: 512, columns: 512, modality: 'CT' });
    expect(result.skipped).toEqual([
      { path: join(FIXTURES, 'bad', 'rtplan-no-pixeldata.dcm'), reason: 'a radiotherapy plan, not an image' },
    ]);
  });

  it('prints a readable block per series with its problems', () => {
    const r = cli('inspect', PHANTOM_DIR, join(FIXTURES, 'mr', 'mr-siemens-trio-explicit-le.dcm'));
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Series 1 of 2: BONE BRAIN 1MM, series number 203 — usable/);
    expect(r.stdout).toMatch(/size +512 x 512 pixels x 140 slices/);
    expect(r.stdout).toMatch(/spacing +pixels 0\.451 x 0\.451 mm, slices 1 mm apart/);
    expect(r.stdout).toMatch(/patient +HEAD, id PLASTIC/);
    expect(r.stdout).toMatch(/Series 2 of 2: ax_asc_35sl.* — NOT usable/);
    expect(r.stdout).toMatch(
      /warning: This is an MR \(magnetic resonance\) scan, not a CT or cone-beam CT scan\./,
    );
  });

  it('shows no stand-in as a measurement: an image without a pixel size has its size unknown', () => {
    const r = cli('inspect', join(FIXTURES, 'transfer-syntax', 'deflated-explicit-le.dcm'));
    expect(r.stdout).toMatch(/spacing +pixel size unknown, /);
    expect(r.stdout).not.toMatch(/pixels 1 x 1 mm/);
  });

  it('exits with 2 when nothing usable was found', () => {
    const r = cli('inspect', join(FIXTURES, 'bad'), join(FIXTURES, 'dicomdir', 'DICOMDIR'));
    expect(r.status).toBe(2);
    expect(r.stdout).toMatch(/error: No series in what you gave can be used/);
    expect(r.stdout).toMatch(/DICOMDIR\n +a DICOMDIR index/);
    const json = cli('inspect', join(FIXTURES, 'bad', 'structured-report-no-pixeldata.dcm'), '--json');
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout).problems[0].code).toBe('nothing-usable');
  });

  it('calls a sound series of which no model can be made NOT usable, says why, and exits with 2', () => {
    // Two frames of a CT, read without a fault: submit and the app refuse it, so inspect does too.
    const r = cli('inspect', join(FIXTURES, 'multiframe', 'enhanced-ct-nema-ct0012-2frames.dcm'));
    expect(r.status).toBe(2);
    expect(r.stdout).toMatch(/series number 3 — NOT usable/);
    expect(r.stdout).toMatch(
      /no model can be made of it\n +The series has only 2 slices; a scan that holds a jaw has at least 20\./,
    );
    expect(r.stdout).toMatch(/error: No series in what you gave can be used; each one says why\./);
  });

  it('prints what the files say without the control characters in it: no escape reaches the terminal', () => {
    // The series description of every slice (14 bytes) holds an ESC sequence that would clear the
    // screen, a newline that would start a line of its own, and a carriage return.
    const dir = mkdtempSync(join(tmpdir(), 's2m-inspect-'));
    try {
      const hostile = '\u001b[2J\nFAKE\rX';
      for (const name of readdirSync(PHANTOM_DIR)) {
        const bytes = readFileSync(join(PHANTOM_DIR, name));
        patchElement(bytes, 'x0008103e', sameLength(bytes, 'x0008103e', hostile));
        writeFileSync(join(dir, name), bytes);
      }
      const r = cli('inspect', dir);
      expect(r.status).toBe(0);
      // eslint-disable-next-line no-control-regex -- no control character but newline may be printed
      expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      expect(r.stdout).toContain('Series 1 of 1: \uFFFD[2J\uFFFDFAKE\uFFFDX, series number 203 — usable');
      expect(r.stdout.split('\n').some((l) => l.startsWith('FAKE'))).toBe(false);
      // JSON keeps the value as it is, escaped as JSON escapes it.
      const json = cli('inspect', dir, '--json');
      expect(JSON.parse(json.stdout).series[0].seriesDescription).toBe(hostile);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('explains a missing path, named as it was given', () => {
    const missing = join(FIXTURES, 'no-such-folder');
    const r = cli('inspect', missing);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${missing} does not exist.`);
  });
});
