// Header fuzzing at scale: 10,000 mutated headers of the real fixtures (flipped bytes, zeroed runs,
// cut ends, absurd lengths, NumberOfFrames 3,000,000 and 99,999,999,999, wrong VRs, huge sizes),
// each classified as intake does. The unit suite runs 2,000 of these (header-fuzz.test.ts); this
// runs more, times each file, and counts as a hang any file that takes longer than HANG_MS.
//
//   npm run bench -- fuzz [count] [seed]
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { classifyBytes, type Classified } from '../src-main/scans/classify-file.js';
import { MUTATIONS, fuzzSources, fuzzVerdict, mutate, prng } from '../src-main/scans/header-fuzz.js';

const here = dirname(fileURLToPath(import.meta.url));
const FIXTURES = join(here, '..', '..', 'shared', 'fixtures', 'dicom');
const COUNT = Number(process.argv[2] ?? 10_000);
const SEED = Number(process.argv[3] ?? 1);
/** A file whose header takes longer than this to classify counts as a hang. */
const HANG_MS = 2000;

function main(): void {
  const sources = fuzzSources(FIXTURES);
  const rand = prng(SEED);
  const byOutcome: Record<string, number> = {};
  const byMutation: Record<string, number> = {};
  const failures: string[] = [];
  let crashes = 0;
  let hangs = 0;
  let rejected = 0;
  let slowest = { ms: 0, name: '' };
  const started = performance.now();
  for (let i = 0; i < COUNT; i++) {
    const src = sources[rand(sources.length)]!;
    const kind = MUTATIONS[rand(MUTATIONS.length)]!;
    const bytes = mutate(src, kind, rand);
    const name = `${src.name}#${i}:${kind}`;
    byMutation[kind] = (byMutation[kind] ?? 0) + 1;
    const t0 = performance.now();
    let r: Classified;
    try {
      r = classifyBytes(bytes, { path: `file${i}`, display: `file${i}` });
    } catch (e) {
      crashes++;
      if (failures.length < 10) failures.push(`${name}: threw ${String(e)}`);
      continue;
    }
    const ms = performance.now() - t0;
    if (ms > slowest.ms) slowest = { ms, name };
    if (ms > HANG_MS) hangs++;
    const outcome =
      r.kind === 'problem'
        ? `problem:${r.problem.code}`
        : r.kind === 'archive'
          ? `archive:${r.archive}`
          : r.kind;
    byOutcome[outcome] = (byOutcome[outcome] ?? 0) + 1;
    const verdict = fuzzVerdict(r);
    if (verdict) {
      rejected++;
      if (failures.length < 10) failures.push(`${name}: ${verdict}`);
    }
  }
  const totalMs = performance.now() - started;
  console.log(`sources: ${sources.length} fixture files; seed ${SEED}`);
  console.log(
    `tried ${COUNT} mutated headers in ${(totalMs / 1000).toFixed(1)} s (${(totalMs / COUNT).toFixed(2)} ms each)`,
  );
  console.log(`crashes (a throw out of the classifier): ${crashes}`);
  console.log(
    `hangs (a file over ${HANG_MS} ms): ${hangs}; slowest ${slowest.ms.toFixed(1)} ms (${slowest.name})`,
  );
  console.log(`results that break the rules (technical text, no reason, absurd frame lists): ${rejected}`);
  console.log(
    `by outcome: ${Object.entries(byOutcome)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  console.log(
    `by mutation: ${Object.entries(byMutation)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  for (const f of failures) console.log(`  ${f}`);
  console.log(
    JSON.stringify({
      bench: 'fuzz',
      tried: COUNT,
      crashes,
      hangs,
      rejected,
      byOutcome,
      byMutation,
      totalMs: Math.round(totalMs),
      slowestMs: Number(slowest.ms.toFixed(1)),
      loadAverage1m: Number(loadavg()[0]!.toFixed(1)),
    }),
  );
  if (crashes + hangs + rejected > 0) process.exitCode = 1;
}

main();
