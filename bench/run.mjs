// `npm run bench -- NAME` runs bench/NAME.bench.ts; with no name it lists the benchmarks.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const names = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''));
const [name, ...rest] = process.argv.slice(2);
if (!name || !names.includes(name)) {
  console.error(`usage: npm run bench -- NAME [args]\nbenchmarks: ${names.join(', ') || '(none)'}`);
  process.exit(name ? 2 : 0);
}
const r = spawnSync(
  process.execPath,
  ['--expose-gc', '--import', 'tsx', join(here, `${name}.bench.ts`), ...rest],
  {
    stdio: 'inherit',
  },
);
process.exit(r.status ?? 1);
