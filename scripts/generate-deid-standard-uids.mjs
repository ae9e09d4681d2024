#!/usr/bin/env node
/**
 * Writes src-main/scans/deid-standard-uids.generated.json: every UID the DICOM standard defines
 * (PS3.6 Table A-1: SOP classes, transfer syntaxes, coding schemes, well-known instances), as
 * Debian's pydicom carries them (pydicom._uid_dict, run as /usr/bin/python3 or $PYTHON). A class
 * UID is kept by de-identification only when it is one of these (src-main/scans/deid-profile.ts):
 * a UID that merely starts with the standard's root can carry anything after it.
 *
 * Usage: node scripts/generate-deid-standard-uids.mjs
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
from pydicom._uid_dict import UID_dictionary
print(json.dumps({'version': pydicom.__version__, 'uids': sorted(UID_dictionary)}))`,
  ],
  { encoding: 'utf8' },
);
if (dump.status !== 0) throw new Error(`${python} could not list pydicom's UIDs: ${dump.stderr}`);
const { version, uids } = JSON.parse(dump.stdout);
const out = {
  generatedBy:
    'scripts/generate-deid-standard-uids.mjs: do not edit, run the script again with a newer pydicom',
  source: `PS3.6 Table A-1 as pydicom ${version} carries it (pydicom._uid_dict)`,
  uids,
};
writeFileSync(
  join(root, 'src-main', 'scans', 'deid-standard-uids.generated.json'),
  JSON.stringify(out) + '\n',
);
console.log(`${uids.length} standard UIDs (pydicom ${version})`);
