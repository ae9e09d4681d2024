import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readVolume } from '../src-main/scans/volume-reader.js';
import { commonValues, correlation } from '../src-main/scans/plane-correlation.js';
const C = '/work/shared/fixtures/dicom/ct-human-cranium-teeth';
const files = readdirSync(C).sort().map((f) => join(C, f));
const head = await readVolume(files);
const [nx, ny] = head.dims;
const data = Int16Array.from(head.data);
for (const k of [30, 31, 32]) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) {
  const si = i + 5; data[k*nx*ny + j*nx + i] = si < nx ? head.data[k*nx*ny + j*nx + si]! : -1024; }
const v = { ...head, data };
const w = commonValues(v, 0.005);
for (const [a, b] of [[29, 30], [32, 33], [29, 33], [29,31],[28,30]]) console.log(a, b, correlation(v, a, b, w).toFixed(4), correlation(head, a, b, w).toFixed(4));
