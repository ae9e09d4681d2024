import { readVolumeForSegmentation } from '../src-main/scans/volume-reader.js';
import { readdirSync } from 'node:fs';
const d = process.argv[2]!;
try { await readVolumeForSegmentation(readdirSync(d).sort().map((f) => d + '/' + f)); console.log('ok'); } catch (e) { console.log((e as Error).message); }
