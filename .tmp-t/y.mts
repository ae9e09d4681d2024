import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readVolume } from '../src-main/scans/volume-reader.js';
import { commonValues, correlation } from '../src-main/scans/plane-correlation.js';
const C = '/work/shared/fixtures/dicom/ct-human-cranium-teeth';
const files = readdirSync(C).sort().map((f) => join(C, f));
const head = await readVolume(files);
const [nx, ny] = head.dims;
const data = Int16Array.from(head.data);
for (const k of [54, 55]) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) {
  const sj = j + 6; data[k*nx*ny + j*nx + i] = sj < ny ? head.data[k*nx*ny + sj*nx + i]! : -1024; }
const v = { ...head, data };
const w = commonValues(v, 0.005);
console.log(w);
for (const [a, b] of [[53, 54], [54, 55], [55, 56], [53, 56], [53, 55], [54, 56]]) console.log(a, b, correlation(v, a, b, w).toFixed(4));
import { checkSlicesInPlace } from '../src-main/scans/slice-placement.js';
import { layoutSlices } from '../src-main/scans/slice-layout.js';
import { readSeriesHeaders } from '../src-main/scans/volume-reader.js';
const { layout } = layoutSlices(await readSeriesHeaders(files));
try { checkSlicesInPlace(v, layout); console.log('no throw'); } catch (e) { console.log((e as Error).message); }
