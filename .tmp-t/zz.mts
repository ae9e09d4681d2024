import { extractZip } from '../src-main/scans/archive-extract.js';
import { mkdtempSync } from 'node:fs';
const out = mkdtempSync('/tmp/me/zx-');
try { const r = await extractZip(process.argv[2]!, out + '/u'); console.log(r.filter((e) => !e.path)); } catch (e) { console.log('ERR', e, (e as any).cause); }
