#!/usr/bin/env node
/**
 * Writes src-main/scans/deid-multiplicity.generated.json: how many values (VM, PS3.6) each public
 * attribute stored as binary numbers (US SS UL SL FL FD UV SV AT) may hold, from the same dictionary
 * as scripts/generate-deid-profile.mjs (Debian's pydicom, run as /usr/bin/python3 or $PYTHON). A
 * number kept by its tag is checked against it (src-main/scans/deid-values.ts): 16 bytes of text
 * under Acquisition Matrix (4 US values, 8 bytes) are no matrix. Attributes of any number of values
 * (1-n) are left out: nothing bounds them.
 *
 * Usage: node scripts/generate-deid-multiplicity.mjs
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const python = process.env.PYTHON ?? '/usr/bin/python3';
const dump = spawnSync(
  python,
  [
    '-c',
    `import json, pydicom
from pydicom._dicom_dict import DicomDictionary
binary = {'US', 'SS', 'UL', 'SL', 'FL', 'FD', 'UV', 'SV', 'AT'}
rows = [[t, v[1]] for t, v in DicomDictionary.items() if set(v[0].split(' or ')) & binary]
print(json.dumps({'version': pydicom.__version__, 'rows': rows}))`,
  ],
  { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
);
if (dump.status !== 0) throw new Error(`${python} could not list pydicom's dictionary: ${dump.stderr}`);
const { version, rows } = JSON.parse(dump.stdout);
const byVm = new Map();
for (const [tag, vm] of rows) {
  if (vm === '1-n') continue;
  if (!byVm.has(vm)) byVm.set(vm, []);
  byVm.get(vm).push(tag);
}
const hex8 = (t) => t.toString(16).padStart(8, '0');
const out = {
  generatedBy:
    'scripts/generate-deid-multiplicity.mjs: do not edit, run the script again with a newer pydicom',
  source: `the PS3.6 data dictionary as pydicom ${version} carries it (pydicom._dicom_dict)`,
  byVm: Object.fromEntries(
    [...byVm.keys()].sort().map((vm) => [
      vm,
      byVm
        .get(vm)
        .sort((a, b) => a - b)
        .map(hex8),
    ]),
  ),
};
writeFileSync(
  join(root, 'src-main', 'scans', 'deid-multiplicity.generated.json'),
  JSON.stringify(out) + '\n',
);
console.log(`value multiplicity of ${rows.length} binary-number attributes (pydicom ${version})`);
