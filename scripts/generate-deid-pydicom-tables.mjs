#!/usr/bin/env node
/**
 * Writes two more tables de-identification checks kept values against (read by
 * src-main/scans/deid-tables.ts), from the same source as the data dictionary of
 * scripts/generate-deid-profile.mjs: Debian's pydicom, run as /usr/bin/python3 (or $PYTHON).
 *
 *   src-main/scans/deid-multiplicity.generated.json   how many values (VM, PS3.6) each attribute stored
 *                                                     as numbers or codes (US SS UL SL FL FD UV SV AT,
 *                                                     DS IS, CS) may hold, open-ended ones (1-n) too.
 *                                                     16 bytes of text under Acquisition Matrix (4 US
 *                                                     values, 8 bytes) are no matrix, nor a birth date
 *                                                     as the second value of Slice Thickness.
 *   src-main/scans/deid-standard-uids.generated.json  every UID the standard defines (PS3.6 Table A-1).
 *                                                     A class UID is kept only when it is one of these:
 *                                                     digits after the standard's root carry anything.
 *
 * Usage: node scripts/generate-deid-pydicom-tables.mjs
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
from pydicom._uid_dict import UID_dictionary
counted = {'US', 'SS', 'UL', 'SL', 'FL', 'FD', 'UV', 'SV', 'AT', 'DS', 'IS', 'CS'}
rows = [[t, v[1]] for t, v in DicomDictionary.items() if set(v[0].split(' or ')) & counted]
print(json.dumps({'version': pydicom.__version__, 'rows': rows, 'uids': sorted(UID_dictionary)}))`,
  ],
  { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
);
if (dump.status !== 0) throw new Error(`${python} could not list pydicom's tables: ${dump.stderr}`);
const { version, rows, uids } = JSON.parse(dump.stdout);

const generatedBy =
  'scripts/generate-deid-pydicom-tables.mjs: do not edit, run the script again with a newer pydicom';
const write = (name, data) =>
  writeFileSync(join(root, 'src-main', 'scans', name), JSON.stringify({ generatedBy, ...data }) + '\n');

const byVm = new Map();
for (const [tag, vm] of rows) {
  if (!byVm.has(vm)) byVm.set(vm, []);
  byVm.get(vm).push(tag);
}
const hex8 = (t) => t.toString(16).padStart(8, '0');
write('deid-multiplicity.generated.json', {
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
});
write('deid-standard-uids.generated.json', {
  source: `PS3.6 Table A-1 as pydicom ${version} carries it (pydicom._uid_dict)`,
  uids,
});
console.log(
  `value multiplicity of ${rows.length} number and code attributes, ${uids.length} standard UIDs (pydicom ${version})`,
);
