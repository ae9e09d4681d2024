import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { phantomBySlice, withPixels } from '../src-main/scans/scans.test-support.js';
import { readVolume } from '../src-main/scans/volume-reader.js';
import { commonValues, correlation } from '../src-main/scans/plane-correlation.js';
function seeded(seed: number) { let s = seed >>> 0; return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32; }; }
const random = seeded(11);
const dir = '/tmp/me/noisy'; mkdirSync(dir, { recursive: true });
const files = phantomBySlice().map((src, i) => { const to = join(dir, basename(src)); const bytes = readFileSync(src);
  writeFileSync(to, i % 3 === 0 ? withPixels(bytes, (v) => Math.max(0, v + Math.round((random() - 0.5) * 1000))) : bytes); return to; });
const v = await readVolume(files);
const w = commonValues(v, 0.005);
const [nx, ny] = v.dims;
function variance(k: number) { let s = 0, ss = 0, n = 0; for (let j = 0; j < ny; j += 4) for (let i = 0; i < nx; i += 4) { let x = v.data[k*nx*ny + j*nx + i]!; x = Math.min(w[1], Math.max(w[0], x)); s += x; ss += x*x; n++; } return ss/n - (s/n)**2; }
for (const k of [66, 69, 135, 138]) {
  const cp = correlation(v, k-1, k, w), cn = correlation(v, k, k+1, w), ar = correlation(v, k-1, k+1, w);
  const alpha = Math.sqrt((variance(k-1) + variance(k+1)) / 2 / variance(k));
  console.log(k, cp.toFixed(3), cn.toFixed(3), ar.toFixed(3), 'alpha', alpha.toFixed(3), 'expected', (Math.min(1, alpha) * ar).toFixed(3));
}
