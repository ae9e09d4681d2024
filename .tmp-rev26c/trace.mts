import { createRequire } from 'node:module';
import { countElements } from './hb-trace.ts';
const require = createRequire(import.meta.url);
const dp = require('/tmp/rev26c/dp-inst.cjs');
const g = globalThis as any;
const [hex, ts, until] = process.argv.slice(2);
const bytes = Buffer.from(hex!, 'hex');
const s = { littleEndian: ts !== '1.2.840.10008.1.2.2', explicitVr: ts !== '1.2.840.10008.1.2' };
g.__dpTrace = []; g.__dpWork = 0;
try { dp.parseDicom(Buffer.from(bytes), { TransferSyntaxUID: ts, ...(until === 'true' ? { untilTag: 'x7fe00010' } : {}) }); } catch (e) { console.log('dp threw', String((e as any).exception ?? e)); }
g.__cTrace = [];
const c = countElements(bytes, 0, s, until === 'true');
const a = new Set<number>(g.__dpTrace), b = new Set<number>(g.__cTrace);
console.log('dp', g.__dpTrace.join(','));
console.log('ce', g.__cTrace.join(','), JSON.stringify(c));
console.log('dp-only', [...a].filter((x) => !b.has(x)).join(','), ' ce-only', [...b].filter((x) => !a.has(x)).join(','));
