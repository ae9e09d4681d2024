/**
 * The end every source generator shares: the source formatted as the repository formats it, then
 * written, or with --check compared with what is written (exit 1 when it is out of date, naming the
 * script to run).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import * as prettier from 'prettier';

export async function writeGenerated(root, target, source, script) {
  const formatted = await prettier.format(source, {
    ...(await prettier.resolveConfig(target)),
    filepath: target,
  });
  if (!process.argv.includes('--check')) {
    writeFileSync(target, formatted);
    console.log(`wrote ${target}`);
    return;
  }
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // Missing counts as out of date.
  }
  if (current !== formatted) {
    console.error(`${relative(root, target)} is out of date: run node ${script}`);
    process.exit(1);
  }
}
