// Header fuzzing at scale: 10,000 mutated headers of the real fixtures (flipped bytes, zeroed runs,
// cut ends, absurd lengths, NumberOfFrames 3,000,000 and 99,999,999,999, wrong VRs, huge sizes),
// each classified as intake does. The unit suite runs 2,000 of these (header-fuzz.test.ts); this
// runs more, times each file, and counts as a hang any file that takes longer than HANG_MS.
//
//   npm run bench -- fuzz [count] [seed]
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fuzzSources, runFuzz } from '../src-main/scans/header-fuzz.test-support.js';

const here = dirname(fileURLToPath(import.meta.url));
const FIXTURES = join(here, '..', '..', 'shared', 'fixtures', 'dicom');
const COUNT = Number(process.argv[2] ?? 10_000);
const SEED = Number(process.argv[3] ?? 1);
/** A file whose header takes longer than this to classify counts as a hang. */
const HANG_MS = 2000;

function main(): void {
  const sources = fuzzSources(FIXTURES);
  let hangs = 0;
  let slowest = { ms: 0, name: '' };
  const started = performance.now();
  // The same loop as the unit suite's fuzz test, with each file's classification time.
  const tally = runFuzz(sources, COUNT, SEED, (name, ms) => {
    if (ms > slowest.ms) slowest = { ms, name };
    if (ms > HANG_MS) hangs++;
  });
  const { crashes, rejected, byOutcome, byMutation, firstFailures: failures } = tally;
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
