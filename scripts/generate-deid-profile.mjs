#!/usr/bin/env node
/**
 * Writes the two data files that de-identification is built from (read by src-main/scans/deid-tables.ts),
 * so that the profile is the standard's own table and not a hand-typed list. Tags are 8 hex digits.
 *
 *   src-main/scans/deid-basic-profile.generated.json  PS3.15 Table E.1-1, "Basic Profile" column: every
 *                                                     attribute the table lists, its action, its name
 *   src-main/scans/deid-dictionary.generated.json     every public attribute of the PS3.6 data dictionary
 *                                                     with its VR (what "an attribute the dictionary
 *                                                     does not know" is measured against)
 *
 * Usage:
 *   node scripts/generate-deid-profile.mjs <confidentiality_profile_attributes.json> [<label>]
 *
 * <confidentiality_profile_attributes.json> is Table E.1-1 as JSON, as published by the
 * innolitics/dicom-standard project (https://github.com/innolitics/dicom-standard, file
 * standard/confidentiality_profile_attributes.json, parsed from the standard's part15 HTML; objects
 * { id: "00080050", tag: "(0008,0050)", name, basicProfile: "Z" | "X/Z/D" | ... }).
 * <label> says which edition it is (e.g. "DICOM 2024b, innolitics/dicom-standard@8670abd"); it is
 * written into the module.
 *
 * The dictionary comes from Debian's pydicom (package python3-pydicom), run as /usr/bin/python3
 * (or $PYTHON): pydicom._dicom_dict is generated from PS3.6 by pydicom's maintainers.
 *
 * Neither source file is kept in the repository: run this again with a newer edition to update.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [profilePath, label = 'unlabelled edition'] = process.argv.slice(2);
if (!profilePath) {
  console.error(
    'usage: node scripts/generate-deid-profile.mjs <confidentiality_profile_attributes.json> [label]',
  );
  process.exit(2);
}

/** The actions Table E.1-1 uses (PS3.15 E.1.1), alone or combined with "/"; U* is U for sequences. */
const ACTION = /^(?:[DZXKCU]\*?)(?:\/[DZXKCU]\*?)*$/;

/** A tag or mask as the data files hold it: 8 lower-case hex digits, no prefix. */
function hex8(n) {
  return (n >>> 0).toString(16).padStart(8, '0');
}

const GENERATED_BY =
  'scripts/generate-deid-profile.mjs: do not edit, run the script again with a newer edition';

/** "ggggeeee" with "x" for a repeated nibble -> { value, mask } (x nibbles are 0 in both). */
function pattern(id) {
  if (!/^[0-9a-fx]{8}$/i.test(id)) return undefined;
  let value = 0;
  let mask = 0;
  for (const ch of id.toLowerCase()) {
    value = value * 16 + (ch === 'x' ? 0 : parseInt(ch, 16));
    mask = mask * 16 + (ch === 'x' ? 0 : 15);
  }
  return { value, mask };
}

// --- Table E.1-1 --------------------------------------------------------------------------------
const rows = JSON.parse(readFileSync(profilePath, 'utf8'));
const exact = [];
const repeating = [];
let privateRow = false;
for (const row of rows) {
  const action = String(row.basicProfile ?? '').trim();
  const name = String(row.name ?? '')
    .replace(/\s*\(see Note \d+\)\s*/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!ACTION.test(action)) throw new Error(`${row.tag}: unknown action "${action}"`);
  if (/odd/i.test(row.id)) {
    // "(gggg,eeee) where gggg is odd": private attributes, handled by rule in deid-profile.ts.
    if (action !== 'X') throw new Error(`private attributes: expected X, found ${action}`);
    privateRow = true;
    continue;
  }
  const p = pattern(row.id);
  if (!p) throw new Error(`${row.tag}: tag not understood`);
  if (p.mask === 0xffffffff) exact.push([p.value, action, name]);
  else repeating.push([p.value, p.mask, action, name]);
}
if (!privateRow) throw new Error('the table has no row for private attributes: is this Table E.1-1?');
if (exact.length < 500) throw new Error(`only ${exact.length} attributes: is this Table E.1-1?`);
exact.sort((a, b) => a[0] - b[0]);
const seen = new Set();
for (const [tag] of exact) {
  if (seen.has(tag)) throw new Error(`${hex8(tag)} listed twice`);
  seen.add(tag);
}

const table = {
  generatedBy: GENERATED_BY,
  source: `PS3.15 Table E.1-1, Basic Profile column (${label})`,
  exact: exact.map(([t, a, n]) => [hex8(t), a, n]),
  repeating: repeating.map(([v, m, a, n]) => [hex8(v), hex8(m), a, n]),
};

// --- The data dictionary (pydicom) ---------------------------------------------------------------
const python = process.env.PYTHON ?? '/usr/bin/python3';
const dump = spawnSync(
  python,
  [
    '-c',
    `import json, pydicom
from pydicom._dicom_dict import DicomDictionary, RepeatersDictionary
print(json.dumps({'version': pydicom.__version__,
  'exact': [[t, v[0]] for t, v in DicomDictionary.items()],
  'repeating': [[k, v[0]] for k, v in RepeatersDictionary.items()]}))`,
  ],
  { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
);
if (dump.status !== 0) throw new Error(`${python} could not list pydicom's dictionary: ${dump.stderr}`);
const dict = JSON.parse(dump.stdout);
/** "US or SS" -> "US|SS": one key per VR combination. */
const vrKey = (vr) => vr.split(/\s+or\s+/).join('|');
const byVr = new Map();
for (const [tag, vr] of dict.exact) {
  if (tag >>> 16 === 0xfffe) continue; // item and delimitation markers are not attributes
  const key = vrKey(vr);
  if (!byVr.has(key)) byVr.set(key, []);
  byVr.get(key).push(tag);
}
const dictRepeating = dict.repeating.map(([id, vr]) => {
  const p = pattern(id);
  if (!p) throw new Error(`dictionary: ${id} not understood`);
  return [p.value, p.mask, vrKey(vr)];
});
const vrs = [...byVr.keys()].sort();
const dictionary = {
  generatedBy: GENERATED_BY,
  source: `the PS3.6 data dictionary as pydicom ${dict.version} carries it (pydicom._dicom_dict)`,
  byVr: Object.fromEntries(
    vrs.map((vr) => [
      vr,
      byVr
        .get(vr)
        .sort((a, b) => a - b)
        .map(hex8),
    ]),
  ),
  repeating: dictRepeating.map(([v, m, vr]) => [hex8(v), hex8(m), vr]),
};

const out = join(root, 'src-main', 'scans');
// One row a line: the files stay diffable when a new edition changes a few rows.
const rowsPerLine = (data) => JSON.stringify(data).replace(/\],\[/g, '],\n[') + '\n';
writeFileSync(join(out, 'deid-basic-profile.generated.json'), rowsPerLine(table));
writeFileSync(join(out, 'deid-dictionary.generated.json'), JSON.stringify(dictionary) + '\n');
console.log(
  `Table E.1-1: ${exact.length} attributes, ${repeating.length} repeating rows; ` +
    `dictionary: ${dict.exact.length} attributes, ${dict.repeating.length} repeating (pydicom ${dict.version}).`,
);
