import { describe, expect, it } from 'vitest';
import { baseName, formatDicomDate, formatDuration, formatMm, formatPersonName } from './format';

describe('format', () => {
  it('shows elapsed time like a clock', () => {
    expect(formatDuration(7_400)).toBe('0:07');
    expect(formatDuration(724_000)).toBe('12:04');
    expect(formatDuration(3_729_000)).toBe('1:02:09');
    expect(formatDuration(-5)).toBe('0:00');
  });
  it('keeps voxel spacing digits and drops noise', () => {
    expect(formatMm(0.451171875)).toBe('0.451');
    expect(formatMm(1)).toBe('1');
    expect(formatMm(12.345)).toBe('12.3');
  });
  it('reads DICOM dates and person names', () => {
    expect(formatDicomDate('20190105')).toBe('2019-01-05');
    expect(formatDicomDate('')).toBe('');
    expect(formatPersonName('Doe^Jane^M^Dr')).toBe('Doe, Dr Jane M');
    expect(formatPersonName('HEAD')).toBe('HEAD');
    expect(formatPersonName('')).toBe('Unnamed');
  });
  it('takes the last path part on any platform', () => {
    expect(baseName('/a/b/mandible.stl')).toBe('mandible.stl');
    expect(baseName('C:\\out\\x.ply')).toBe('x.ply');
  });
});
