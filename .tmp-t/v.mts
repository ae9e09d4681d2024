import dicomParser from 'dicom-parser';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { phantomBySlice, withPixels } from '../src-main/scans/scans.test-support.js';
import { readVolumeForSegmentation } from '../src-main/scans/volume-reader.js';
const files = phantomBySlice();
const dir = '/tmp/me/ph-shift'; mkdirSync(dir, { recursive: true });
const copies = files.map((src, k) => {
  const bytes = readFileSync(src); const to = join(dir, basename(src));
  if (k !== 70) writeFileSync(to, bytes);
  else { const ds = dicomParser.parseDicom(bytes); const px = ds.elements.x7fe00010!; const columns = ds.uint16('x00280011')!;
    const stored = (c: number, r: number) => bytes.readInt16LE(px.dataOffset + 2 * (r * columns + c));
    writeFileSync(to, withPixels(bytes, (v, c, r) => (c >= 4 ? stored(c - 4, r) : v))); }
  return to; });
try { await readVolumeForSegmentation(copies); console.log('ok'); } catch (e) { console.log((e as Error).message); }
