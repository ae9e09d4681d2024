import { layoutSlices } from '../src-main/scans/slice-layout.js';
import { checkSlicesInPlace } from '../src-main/scans/slice-placement.js';
import { checkSlicesAlike } from '../src-main/scans/slice-likeness.js';
import { phantomFiles } from '../src-main/scans/scans.test-support.js';
import { readSeriesHeaders, readVolume } from '../src-main/scans/volume-reader.js';
const files = phantomFiles();
const v = await readVolume(files);
const { layout } = layoutSlices(await readSeriesHeaders(files));
for (let r = 0; r < 3; r++) {
  let t = performance.now(); checkSlicesInPlace(v, layout); const a = performance.now() - t;
  t = performance.now(); checkSlicesAlike(v, layout); console.log('inPlace', a.toFixed(1), 'alike', (performance.now() - t).toFixed(1));
}
